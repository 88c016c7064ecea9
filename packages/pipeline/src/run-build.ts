import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  checkSchema,
  compareCodePoints,
  formatIssue,
  hashFile,
  hashTree,
  hashValue,
  writeJsonAtomic,
  type ProgressListener,
} from '@junobench/core';
import { acquireBuildMutex } from './build-mutex.js';
import { emptyLock, planBuild, type BuildLock, type StageDecision } from './plan-build.js';

/** One stage of the build: what it reads, what it writes, and how to run it. */
export interface Stage {
  name: string;
  description: string;
  /** Files and folders it reads, relative to the project root. */
  inputs: string[];
  /** Files and folders it writes, relative to the project root. */
  outputs: string[];
  /** Option values that change what it writes. */
  params?: unknown;
  /** Identity of the environment it depends on (e.g. the runtime's fingerprint). */
  environment?: () => Promise<string>;
  /** Runs the stage; returns a one-line summary of what it did. */
  run: (io: StageIO) => Promise<StageResult>;
}

export interface StageResult {
  summary: string;
  /** The work ran and found failures (e.g. an instance not verified): the build exits 1. */
  failed?: boolean;
  /** What the user should know that did not stop the stage (e.g. credentials removed from a published URL). */
  warnings?: string[];
}

export interface StageIO {
  root: string;
  abs: (rel: string) => string;
  onProgress: ProgressListener;
}

export interface StageEvent {
  stage: string;
  description: string;
  decision: StageDecision;
  /** Set when the stage has finished (ran or was skipped). */
  result?: StageResult & { durationMs: number };
}

export interface BuildReport {
  stages: {
    stage: string;
    action: 'run' | 'skip';
    reason: string;
    summary: string;
    failed: boolean;
    durationMs: number;
  }[];
  failed: boolean;
  /** Things the build noticed that did not stop it (a corrupt build lock, a stale lock taken over). */
  warnings: string[];
}

export interface RunStagesOptions {
  root: string;
  /** Build lock location, relative to root. */
  lockFile: string;
  /** Hashed into every stage's fingerprint: the toolchain's own code and schemas. */
  codeFingerprint: string;
  force?: boolean;
  /** Run only these stages (their upstream must have been built before). */
  only?: readonly string[];
  onStage?: (event: StageEvent) => void;
  onProgress?: ProgressListener;
  /** Called as soon as the build notices something that does not stop it. */
  onWarning?: (message: string) => void;
  /** Shown to a second build of the same folder, naming this one (default `junobench build`). */
  command?: string;
}

/**
 * Run stages in order, skipping each one whose fingerprint and outputs match
 * the build lock. The lock is updated after every successful stage, so an
 * interrupted build resumes where it stopped.
 *
 * One build at a time per output folder (the build lock's folder): an
 * exclusive `.build-in-progress.json` there names the holder to a second
 * build, which is refused; one left by a process that is gone is taken over
 * with a warning. A build lock that is not valid is ignored — every stage runs
 * again — with a warning saying so.
 */
export async function runStages(stages: readonly Stage[], options: RunStagesOptions): Promise<BuildReport> {
  const abs = (rel: string) => path.resolve(options.root, rel);
  const lockPath = abs(options.lockFile);
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.onWarning?.(message);
  };
  const release = await acquireBuildMutex(path.dirname(lockPath), {
    command: options.command ?? 'junobench build',
    onWarning: warn,
    label: path.dirname(options.lockFile) || '.',
  });
  try {
    return await runLocked(stages, options, abs, lockPath, warnings, warn);
  } finally {
    await release();
  }
}

async function runLocked(
  stages: readonly Stage[],
  options: RunStagesOptions,
  abs: (rel: string) => string,
  lockPath: string,
  warnings: string[],
  warn: (message: string) => void,
): Promise<BuildReport> {
  const { lock, problem } = await readLock(lockPath);
  if (problem) warn(`${options.lockFile} is not a valid build lock (${problem}): ignored, every stage runs again`);
  const known = new Set(stages.map((s) => s.name));
  for (const name of options.only ?? []) {
    if (!known.has(name)) {
      throw new JunoError('E_USAGE', `unknown build stage "${name}"`, {
        hint: `stages: ${stages.map((s) => s.name).join(', ')}`,
      });
    }
  }
  const report: BuildReport = { stages: [], failed: false, warnings };
  for (const stage of stages) {
    if (options.only && options.only.length > 0 && !options.only.includes(stage.name)) continue;
    const inputs = await fingerprintPaths(options.root, stage.inputs);
    const fingerprint = hashValue({
      inputs,
      params: stage.params ?? null,
      environment: stage.environment ? await stage.environment() : null,
      code: options.codeFingerprint,
    });
    const outputs = await fingerprintOutputs(options.root, stage.outputs);
    const [decision] = planBuild([{ name: stage.name, fingerprint, outputs }], lock, { force: options.force ?? false });
    options.onStage?.({ stage: stage.name, description: stage.description, decision: decision! });
    if (decision!.action === 'skip') {
      const summary = decision!.summary;
      report.stages.push({
        stage: stage.name,
        action: 'skip',
        reason: decision!.reason,
        summary,
        failed: false,
        durationMs: 0,
      });
      options.onStage?.({
        stage: stage.name,
        description: stage.description,
        decision: decision!,
        result: { summary, durationMs: 0 },
      });
      continue;
    }
    const t0 = Date.now();
    delete lock.stages[stage.name];
    await writeJsonAtomic(lockPath, lock, { schema: 'build-lock' });
    const result = await stage.run({ root: options.root, abs, onProgress: options.onProgress ?? (() => undefined) });
    const durationMs = Date.now() - t0;
    const written = await fingerprintOutputs(options.root, stage.outputs);
    if (written === undefined) {
      throw new JunoError(
        'E_INTERNAL',
        `stage ${stage.name} did not write all of its outputs (${stage.outputs.join(', ')})`,
      );
    }
    // A stage that found failures is not recorded as built: the next build looks again.
    if (!result.failed) lock.stages[stage.name] = { fingerprint, outputs: written, summary: result.summary, inputs };
    await writeJsonAtomic(lockPath, lock, { schema: 'build-lock' });
    report.stages.push({
      stage: stage.name,
      action: 'run',
      reason: decision!.reason,
      summary: result.summary,
      failed: Boolean(result.failed),
      durationMs,
    });
    report.failed ||= Boolean(result.failed);
    options.onStage?.({
      stage: stage.name,
      description: stage.description,
      decision: decision!,
      result: { ...result, durationMs },
    });
  }
  return report;
}

export interface BuildSourcesCheck {
  /** `missing`: never built (or the lock is elsewhere); `invalid`: unreadable; `ok`: read. */
  lock: 'missing' | 'invalid' | 'ok';
  /** Sources that differ from what the build read: a path, and the stages that read it. */
  changed: { path: string; stages: string[] }[];
  /** Stages whose lock entry has no per-path record (written by an older toolchain): nothing to compare. */
  unrecorded: string[];
}

/**
 * Whether the sources a build read (every stage input outside `derivedDir`,
 * the folder the build writes: raw/ files, docker/ profiles) are still what
 * they were when it ran. Inputs inside `derivedDir` are left out: they are
 * the build's own outputs. Code and environment are not compared — a newer
 * toolchain does not make curated/ wrong, an edited label does.
 */
export async function checkBuildSources(options: {
  root: string;
  lockFile: string;
  derivedDir: string;
}): Promise<BuildSourcesCheck> {
  const { lock, problem } = await readLock(path.resolve(options.root, options.lockFile));
  const out: BuildSourcesCheck = { lock: problem ? 'invalid' : 'ok', changed: [], unrecorded: [] };
  if (problem) return out;
  const names = Object.keys(lock.stages).sort(compareCodePoints);
  if (names.length === 0) return { ...out, lock: 'missing' };
  const derived = path.resolve(options.root, options.derivedDir);
  const byPath = new Map<string, string[]>();
  const now = new Map<string, Promise<string>>();
  const hashNow = (abs: string) => {
    let h = now.get(abs);
    if (!h) now.set(abs, (h = hashPath(abs).then((x) => x ?? 'missing')));
    return h;
  };
  for (const name of names) {
    const inputs = lock.stages[name]!.inputs;
    if (!inputs) {
      out.unrecorded.push(name);
      continue;
    }
    for (const [rel, recorded] of Object.entries(inputs)) {
      const abs = path.resolve(options.root, rel);
      const inside = path.relative(derived, abs);
      if (inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside))) continue;
      if ((await hashNow(abs)) === recorded) continue;
      byPath.set(rel, [...(byPath.get(rel) ?? []), name]);
    }
  }
  out.changed = [...byPath].sort(([a], [b]) => compareCodePoints(a, b)).map(([p, stages]) => ({ path: p, stages }));
  return out;
}

/** The build lock, or an empty one: missing is normal (never built), anything unreadable is a problem to report. */
async function readLock(file: string): Promise<{ lock: BuildLock; problem?: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lock: emptyLock() };
    return { lock: emptyLock(), problem: (e as Error).message };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { lock: emptyLock(), problem: `not JSON: ${(e as Error).message}` };
  }
  const issues = checkSchema('build-lock', value);
  if (issues.length > 0) return { lock: emptyLock(), problem: formatIssue(issues[0]!) };
  return { lock: value as BuildLock };
}

/** Content hash of each path (file or folder); a missing input hashes as missing, not as an error. */
async function fingerprintPaths(root: string, rels: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of rels) out[rel] = (await hashPath(path.resolve(root, rel))) ?? 'missing';
  return out;
}

async function fingerprintOutputs(root: string, rels: readonly string[]): Promise<string | undefined> {
  const parts: Record<string, string> = {};
  for (const rel of rels) {
    const h = await hashPath(path.resolve(root, rel));
    if (h === undefined) return undefined;
    parts[rel] = h;
  }
  return hashValue(parts);
}

async function hashPath(p: string): Promise<string | undefined> {
  try {
    const st = await stat(p);
    return st.isDirectory() ? `dir:${await hashTree(p)}` : `file:${await hashFile(p)}`;
  } catch {
    return undefined;
  }
}
