import path from 'node:path';
import { JunoError, hashValue, writeJsonAtomic, type ProgressListener } from '@junobench/core';
import { hashBuildPath, planBuild, readBuildLock, type StageDecision } from '@junobench/build-lock';
import { acquireBuildMutex } from './build-mutex.js';

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
  const { lock, problem } = await readBuildLock(lockPath);
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

/** Content hash of each path (file or folder); a missing input hashes as missing, not as an error. */
async function fingerprintPaths(root: string, rels: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of rels) out[rel] = (await hashBuildPath(path.resolve(root, rel))) ?? 'missing';
  return out;
}

async function fingerprintOutputs(root: string, rels: readonly string[]): Promise<string | undefined> {
  const parts: Record<string, string> = {};
  for (const rel of rels) {
    const h = await hashBuildPath(path.resolve(root, rel));
    if (h === undefined) return undefined;
    parts[rel] = h;
  }
  return hashValue(parts);
}
