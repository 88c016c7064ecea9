import os from 'node:os';
import path from 'node:path';
import { readFile, stat } from 'node:fs/promises';
import {
  JunoError,
  hashTree,
  hashValue,
  linearRegExpProblem,
  listInstanceIds,
  readInstance,
  readJsonFile,
  validateInstanceId,
  writeJsonAtomic,
  type Instance,
  type InstanceVerification,
  type ProgressListener,
  type RuntimeIdentity,
  type VerificationReport,
  type VersionResult,
} from '@junobench/core';
import {
  assertNoNulCells,
  DEFAULT_CELL_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  listCodeCells,
  parseImports,
  planExecution,
  isDraftFix,
  readNotebook,
  type Notebook,
} from '@junobench/notebook';
import { hashRunnerFiles, type NotebookRun, type Runtime } from '@junobench/runtime';
import {
  hashHarness,
  planChecksProbe,
  readChecksProbe,
  readHarnessSource,
  readInstanceChecks,
  type InstanceChecks,
} from '@junobench/checks';
import { classifyFixed, classifyReproduced, skippedEnv, type NotebookVersionName } from './classify-outcome.js';
import { checkCachedVerification, deriveStatus } from './check-cached-verification.js';
import { planVerificationReport } from './write-verification-report.js';

/** Bumped when classification changes, so cached verdicts from older logic are not reused. */
export const VERIFY_LOGIC_VERSION = 2;

export interface VerifyOptions {
  instancesDir: string;
  /** Instance ids to verify; default every instance in instancesDir. */
  ids?: readonly string[];
  runtime: Runtime;
  /** Notebooks executed at once; default the number of CPUs. */
  jobs?: number;
  /** Runs per version; outcomes that differ between runs make the instance flaky. */
  repeat?: number;
  /** Where per-instance results are cached by content hash; undefined = no cache at all. */
  cacheDir?: string;
  /** false = ignore cached results (still write fresh ones): `--no-cache`. */
  useCache?: boolean;
  /** Import each instance's required modules while its kernel starts (default true). */
  prewarm?: boolean;
  cellTimeoutSeconds?: number;
  timeoutSeconds?: number;
  onProgress?: ProgressListener;
  /** Things the user should know that do not stop the work (e.g. a cache entry discarded). */
  onWarning?: (message: string) => void;
  /** Called as each instance is decided (cached ones first). */
  onInstance?: (v: InstanceVerification) => void;
  signal?: AbortSignal;
}

interface PreparedInstance {
  id: string;
  dir: string;
  instance: Instance;
  cells: Record<NotebookVersionName, number[]>;
  prewarm: Record<NotebookVersionName, string[]>;
  identity: RuntimeIdentity;
  missing: string[];
  contentHash: string;
  /** A draft without fixed.ipynb. */
  /** A draft's fixed version that is not run: no fixed.ipynb (absent), or the draft fix `add` wrote (draft-fix). */
  fixedAbsent?: 'absent' | 'draft-fix' | false;
  /** checks.py: run after the fixed notebook's last cell (the harness also records evidence of hiding). */
  checks?: InstanceChecks;
}

/** Verify instances: every reproduced notebook must crash as labelled, every fixed one must run. */
export async function verifyInstances(options: VerifyOptions): Promise<VerificationReport> {
  const { instancesDir, runtime } = options;
  const available = await listInstanceIds(instancesDir);
  const ids = options.ids && options.ids.length > 0 ? options.ids.map((id) => validateInstanceId(id)) : available;
  if (ids.length === 0) {
    // "0/0 verified" would read as success to a script that passed the wrong folder.
    throw new JunoError(
      'E_INPUT_NOT_FOUND',
      `no instances in ${instancesDir}: none of its sub-folders holds an instance.json`,
      {
        location: { file: instancesDir },
        hint: 'pass the folder that holds one sub-folder per instance (raw/instances, curated/instances)',
      },
    );
  }
  const unknown = ids.filter((id) => !available.includes(id));
  if (unknown.length > 0) {
    throw new JunoError(
      'E_INPUT_NOT_FOUND',
      `no instance named ${unknown.map((u) => `"${u}"`).join(', ')} in ${instancesDir}`,
      {
        hint:
          available.length > 0
            ? `available: ${available.join(', ')}`
            : 'the folder holds no instance (a sub-folder with instance.json)',
      },
    );
  }
  const progress = options.onProgress;
  let done = 0;
  const total = ids.length;
  progress?.({ task: 'verify', done, total });

  const prepared = await prepareInstances(
    ids.map((id) => path.join(instancesDir, id)),
    options,
  );
  const results = new Map<string, InstanceVerification>();
  const decide = (v: InstanceVerification) => {
    results.set(v.instance, v);
    options.onInstance?.(v);
    progress?.({ task: 'verify', done: ++done, total, item: `${v.instance} ${v.status}` });
  };

  const toRun: PreparedInstance[] = [];
  for (const p of prepared) {
    const cached =
      options.cacheDir && options.useCache !== false
        ? await readCached(options.cacheDir, p, Math.max(1, options.repeat ?? 1), (reason) => {
            const message = `${p.id}: cached result discarded (${reason}); running it again`;
            options.onWarning?.(message);
            progress?.({ task: 'verify', done, total, message });
          })
        : undefined;
    if (cached) {
      decide({ ...cached, cached: true });
    } else if (p.missing.length > 0) {
      const v = summarize(
        p,
        [skippedEnv('reproduced', p.missing, p.identity)],
        [p.fixedAbsent ? absentFixed(p.identity, p.fixedAbsent) : skippedEnv('fixed', p.missing, p.identity)],
      );
      if (options.cacheDir) await writeJsonAtomic(cacheFile(options.cacheDir, p.contentHash), v);
      decide(v);
    } else {
      toRun.push(p);
    }
  }

  if (toRun.length > 0)
    await runPrepared(toRun, options, async (v, { runtimeFailed }) => {
      // A run the runtime itself could not carry out (no kernel started, the
      // runtime gave up, a queue worker went silent) says nothing about the
      // notebook: reported, never cached, so the next verify runs it again.
      if (options.cacheDir && !runtimeFailed) await writeJsonAtomic(cacheFile(options.cacheDir, v.contentHash), v);
      decide(v);
    });

  return planVerificationReport(
    runtime.kind,
    ids.map((id) => results.get(id)!),
  );
}

/**
 * Verify one instance folder (anywhere, e.g. a staging copy), without cache.
 * Used to check that subsampled data still reproduces the crash.
 */
export async function verifyInstanceDir(
  instanceDir: string,
  options: Omit<VerifyOptions, 'instancesDir' | 'ids' | 'cacheDir' | 'useCache' | 'onInstance'>,
): Promise<InstanceVerification> {
  const [p] = await prepareInstances([instanceDir], options, { checkFolderName: false });
  if (p!.missing.length > 0) {
    return summarize(
      p!,
      [skippedEnv('reproduced', p!.missing, p!.identity)],
      [p!.fixedAbsent ? absentFixed(p!.identity, p!.fixedAbsent) : skippedEnv('fixed', p!.missing, p!.identity)],
    );
  }
  let out: InstanceVerification | undefined;
  await runPrepared([p!], options, async (v) => {
    out = v;
  });
  return out!;
}

async function prepareInstances(
  dirs: string[],
  options: Pick<VerifyOptions, 'runtime' | 'repeat' | 'cellTimeoutSeconds' | 'timeoutSeconds'>,
  flags: { checkFolderName?: boolean } = {},
): Promise<PreparedInstance[]> {
  const loaded: {
    dir: string;
    instance: Instance;
    cells: Record<NotebookVersionName, number[]>;
    prewarm: Record<NotebookVersionName, string[]>;
    tree: string;
    checks?: InstanceChecks;
    draftFix: boolean;
  }[] = [];
  for (const dir of dirs) {
    // The link rule before anything is read: a link leaving the instance (or
    // dangling, or a FIFO) is refused by name, exit 2; links inside count as
    // their targets' content in the cache key.
    const tree = await hashTree(dir);
    const instance = flags.checkFolderName === false ? await readInstanceLoose(dir) : await readInstance(dir);
    const cells = {} as Record<NotebookVersionName, number[]>;
    const prewarm = {} as Record<NotebookVersionName, string[]>;
    let draftFix = false;
    for (const version of ['reproduced', 'fixed'] as const) {
      const nbFile = path.join(dir, `${version}.ipynb`);
      if (version === 'fixed' && instance.status === 'draft' && !(await fileExists(nbFile))) {
        // A draft from `junobench add` has no fixed notebook yet: only reproduced runs.
        cells.fixed = [];
        prewarm.fixed = [];
        continue;
      }
      const nb = await readNotebook(nbFile);
      assertNoNulCells(nb, nbFile);
      if (version === 'fixed' && instance.status === 'draft' && isDraftFix(nb)) {
        // The starter `junobench add` wrote (the reproduced notebook, marked): it is no fix yet, so it is not run.
        cells.fixed = [];
        prewarm.fixed = [];
        draftFix = true;
        continue;
      }
      cells[version] = planExecution(nb, instance.execution.order, instance.execution.cells);
      prewarm[version] = planPrewarm(nb, cells[version], instance.requires);
      if (version === 'reproduced') {
        const count = listCodeCells(nb).length;
        if (instance.crash.cell >= count) {
          throw new JunoError(
            'E_INSTANCE',
            `crash.cell is ${instance.crash.cell} but reproduced.ipynb has ${count} code cells (0–${count - 1})`,
            {
              location: { file: path.join(dir, 'instance.json'), field: 'crash.cell' },
              hint: 'crash.cell counts code cells only, from 0',
            },
          );
        }
      }
    }
    if (instance.crash.match === 'regex') {
      const problem = linearRegExpProblem(instance.crash.evalue);
      if (problem) {
        throw new JunoError(
          'E_INSTANCE',
          `crash.evalue is not a regular expression the linear-time engine runs: ${problem}`,
          {
            location: { file: path.join(dir, 'instance.json'), field: 'crash.evalue' },
            hint: 'write it without backreferences (\\1) or lookarounds ((?=…), (?!…)): instances are untrusted, and those need a backtracking engine that a crafted pattern can hang',
          },
        );
      }
    }
    const checks = await readInstanceChecks(dir);
    loaded.push({ dir, instance, cells, prewarm, tree, draftFix, ...(checks ? { checks } : {}) });
  }
  const allModules = [...new Set(loaded.flatMap((l) => l.instance.requires))].sort();
  const identity = await options.runtime.describe(allModules);
  // Every module of the runner; the runtime identity (`own`) carries fork/launch and threads.
  const runnerHash = await hashRunnerFiles();
  // The harness judges the fixed run: a new harness can change a verdict.
  const harnessHash = await hashHarness();
  const out: PreparedInstance[] = [];
  for (const l of loaded) {
    const packages = Object.fromEntries(l.instance.requires.map((m) => [m, identity.packages[m] ?? null]));
    const own: RuntimeIdentity = { ...identity, packages };
    const missing = l.instance.requires.filter((m) => packages[m] === null);
    const contentHash = hashValue({
      instance: l.tree,
      runtime: own,
      runner: runnerHash,
      checks: harnessHash,
      logic: VERIFY_LOGIC_VERSION,
      repeat: options.repeat ?? 1,
      cellTimeout: options.cellTimeoutSeconds ?? null,
      timeout: options.timeoutSeconds ?? null,
    });
    out.push({
      id: l.instance.id,
      dir: l.dir,
      instance: l.instance,
      cells: l.cells,
      prewarm: l.prewarm,
      identity: own,
      missing,
      contentHash,
      ...(l.checks ? { checks: l.checks } : {}),
      fixedAbsent: l.draftFix
        ? 'draft-fix'
        : l.instance.status === 'draft' &&
            l.cells.fixed.length === 0 &&
            !(await fileExists(path.join(l.dir, 'fixed.ipynb')))
          ? 'absent'
          : false,
    });
  }
  return out;
}

async function readInstanceLoose(dir: string): Promise<Instance> {
  try {
    return await readInstance(dir);
  } catch (e) {
    // A staging copy lives in a folder named differently from the id: accept it.
    if (e instanceof JunoError && e.code === 'E_INSTANCE' && e.location?.field === 'id') {
      return readJsonFile<Instance>(path.join(dir, 'instance.json'), { schema: 'instance' });
    }
    throw e;
  }
}

async function runPrepared(
  prepared: PreparedInstance[],
  options: Pick<
    VerifyOptions,
    'runtime' | 'jobs' | 'repeat' | 'prewarm' | 'cellTimeoutSeconds' | 'timeoutSeconds' | 'signal'
  >,
  onDecided: (v: InstanceVerification, how: { runtimeFailed: boolean }) => Promise<void>,
): Promise<void> {
  const repeat = Math.max(1, options.repeat ?? 1);
  const harness = await readHarnessSource();
  const runs: NotebookRun[] = [];
  const owner: { p: PreparedInstance; version: NotebookVersionName; nonce?: string }[] = [];
  // Versions of one instance sit next to each other so instances finish (and
  // are reported) progressively rather than all at the end.
  const perInstance = new Map<
    string,
    { reproduced: VersionResult[]; fixed: VersionResult[]; runtimeFailed: boolean }
  >();
  for (const p of prepared) {
    if (p.fixedAbsent)
      perInstance.set(p.id, {
        reproduced: [],
        fixed: Array.from({ length: repeat }, () => absentFixed(p.identity, p.fixedAbsent)),
        runtimeFailed: false,
      });
    for (let r = 0; r < repeat; r++) {
      for (const version of ['reproduced', 'fixed'] as const) {
        if (version === 'fixed' && p.fixedAbsent) continue;
        const ex = p.instance.execution;
        // The fixed notebook must pass its checks and hide nothing, as a repair must (docs/checks.md).
        const checks =
          version === 'fixed'
            ? planChecksProbe(harness, {
                ename: p.instance.crash.ename,
                requires: p.instance.requires,
                ...(p.checks ? { checks: p.checks.source } : {}),
              })
            : undefined;
        runs.push({
          id: `${p.id}/${version}/${r}`,
          instanceDir: p.dir,
          notebook: `${version}.ipynb`,
          cells: p.cells[version],
          cellTimeoutSeconds: options.cellTimeoutSeconds ?? ex.cellTimeoutSeconds ?? DEFAULT_CELL_TIMEOUT_SECONDS,
          timeoutSeconds: options.timeoutSeconds ?? ex.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
          ...(options.prewarm === false ? {} : { prewarm: p.prewarm[version] }),
          ...(checks ? { probe: checks.probe } : {}),
        });
        owner.push({ p, version, ...(checks ? { nonce: checks.nonce } : {}) });
      }
    }
  }
  const pendingWrites: Promise<void>[] = [];
  await options.runtime.run(runs, {
    jobs: options.jobs ?? Math.max(1, os.availableParallelism()),
    ...(options.signal ? { signal: options.signal } : {}),
    onResult: (result, run) => {
      const o = owner[runs.indexOf(run)]!;
      const entry = perInstance.get(o.p.id) ?? { reproduced: [], fixed: [], runtimeFailed: false };
      perInstance.set(o.p.id, entry);
      if (result.status === 'failed') entry.runtimeFailed = true;
      const v =
        o.version === 'reproduced'
          ? classifyReproduced(result, o.p.instance.crash, o.p.identity)
          : classifyFixed(
              result,
              o.p.identity,
              readChecksProbe(result, o.nonce ?? '', o.p.cells.fixed, o.p.checks?.checks ?? []),
            );
      entry[o.version].push(v);
      if (entry.reproduced.length === repeat && entry.fixed.length === repeat) {
        pendingWrites.push(
          onDecided(summarize(o.p, entry.reproduced, entry.fixed), { runtimeFailed: entry.runtimeFailed }),
        );
      }
    },
  });
  await Promise.all(pendingWrites);
}

/**
 * The modules to import while a notebook's kernel starts: what the cells that
 * will run import (`import matplotlib.pyplot`, `from sklearn import svm` → also
 * `sklearn.svm` in case it is a module), limited to the instance's declared
 * `requires`, in the order the notebook imports them. Only sys.modules is
 * touched; names are bound by the notebook's own import statements.
 */
export function planPrewarm(nb: Notebook, cells: readonly number[], requires: readonly string[]): string[] {
  const allowed = new Set(requires);
  const code = listCodeCells(nb);
  const out: string[] = [];
  const add = (m: string) => {
    if (allowed.has(m.split('.')[0]!) && !out.includes(m)) out.push(m);
  };
  for (const i of cells) {
    for (const imp of parseImports(code[i]?.source ?? '')) {
      add(imp.module);
      if (imp.target !== imp.module && imp.alias !== '*') add(imp.target);
    }
  }
  for (const r of requires) add(r);
  return out;
}

/** One instance's verdict from its runs (one per repeat and version). */
export function summarize(
  p: Pick<PreparedInstance, 'id' | 'contentHash'>,
  reproduced: VersionResult[],
  fixed: VersionResult[],
): InstanceVerification {
  const first = { reproduced: pickRepresentative(reproduced), fixed: pickRepresentative(fixed) };
  const { status, verified, flaky } = deriveStatus(
    reproduced.map((r) => r.outcome),
    fixed.map((r) => r.outcome),
  );
  const v: InstanceVerification = {
    instance: p.id,
    status,
    verified,
    flaky,
    reproduced: first.reproduced,
    fixed: first.fixed,
    contentHash: p.contentHash,
    cached: false,
  };
  if (reproduced.length > 1 || fixed.length > 1) {
    v.repeats = { reproduced: reproduced.map((r) => r.outcome), fixed: fixed.map((r) => r.outcome) };
  }
  return v;
}

/** The fixed "run" of a draft without a fix yet: nothing ran, and that is not a failure. */
function absentFixed(runtime: RuntimeIdentity, why: 'absent' | 'draft-fix' | false | undefined): VersionResult {
  const draftFix = why === 'draft-fix';
  return {
    version: 'fixed',
    outcome: draftFix ? 'draft-fix' : 'absent',
    reason: draftFix
      ? 'a draft whose fixed.ipynb is still the draft fix `junobench add` wrote (delete its DRAFT FIX cell once repaired): only the reproduced notebook is run'
      : 'a draft without fixed.ipynb: only the reproduced notebook is run',
    cells: [],
    durationMs: 0,
    runtime,
  };
}

async function fileExists(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

// With repeats, show a run that went wrong when there is one: that is the one to look at.
function pickRepresentative(results: VersionResult[]): VersionResult {
  const good = new Set(['crash-reproduced', 'fixed-ok']);
  return results.find((r) => !good.has(r.outcome)) ?? results[0]!;
}

function cacheFile(cacheDir: string, hash: string): string {
  return path.join(cacheDir, 'verify', `${hash}.json`);
}

async function readCached(
  cacheDir: string,
  p: PreparedInstance,
  repeat: number,
  onDiscard: (reason: string) => void,
): Promise<InstanceVerification | undefined> {
  let text: string;
  try {
    text = await readFile(cacheFile(cacheDir, p.contentHash), 'utf8');
  } catch {
    return undefined;
  }
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    onDiscard('not valid JSON');
    return undefined;
  }
  const check = checkCachedVerification(entry, {
    id: p.id,
    contentHash: p.contentHash,
    crash: p.instance.crash,
    repeat,
  });
  if (!check.ok) {
    onDiscard(check.reason);
    return undefined;
  }
  return check.value;
}
