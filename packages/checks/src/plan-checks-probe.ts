import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { libraryOfModule, sha256, type RunProbe } from '@junobench/core';
import { normalizeEname } from '@junobench/notebook';

/** The harness's Python, sent to the kernel as the probe (packages/checks/python/jbchecks/harness.py). */
export const HARNESS_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../python/jbchecks/harness.py');

/** The finish step's own time limit: running a handful of checks on a notebook's state takes seconds at most. */
export const CHECKS_FINISH_SECONDS = 120;

/**
 * Top-level modules whose functions, methods and attributes a notebook must not replace (docs/checks.md, "Runtime
 * evidence of hiding"): the libraries of the benchmark's taxonomy. An instance's own `requires` that the taxonomy knows
 * are added to them.
 */
export const WATCHED_LIBRARIES: readonly string[] = [
  'catboost',
  'cv2',
  'keras',
  'lightgbm',
  'matplotlib',
  'numpy',
  'pandas',
  'PIL',
  'scipy',
  'seaborn',
  'sklearn',
  'statsmodels',
  'tensorflow',
  'torch',
  'torchvision',
  'transformers',
  'xgboost',
];

let harness: Promise<string> | undefined;

/** The harness's source, read once. */
export function readHarnessSource(): Promise<string> {
  harness ??= readFile(HARNESS_FILE, 'utf8');
  return harness;
}

/** sha256 of the harness: part of every cache key of a run it judged (verify, the mutation test). */
export async function hashHarness(): Promise<string> {
  return sha256(await readHarnessSource());
}

export interface ChecksProbeOptions {
  /** The instance's labelled exception class (module prefix ignored): swallowing it is evidence of hiding. */
  ename?: string;
  /** checks.py's text; without it only the evidence is collected. */
  checks?: string;
  /** The instance's required modules: those the taxonomy knows are watched for replacement too. */
  requires?: readonly string[];
  /** Snapshot the names bound or changed from this plan position (0-based) on: for `checks suggest`. */
  snapshotFrom?: number;
  /** The marker of this run's result lines; default a fresh random one. */
  nonce?: string;
}

/** A run's probe and the nonce its result lines carry. */
export interface ChecksProbe {
  probe: RunProbe;
  nonce: string;
}

/**
 * The probe that runs the harness (readHarnessSource) around a notebook's cells: `setup` installs it from a private
 * namespace, nothing bound in the notebook's; `finish` runs the checks. The nonce appears only in `finish`, which is
 * sent after the last cell ran: code of the notebook cannot know it beforehand to print result lines of its own.
 */
export function planChecksProbe(harnessSource: string, options: ChecksProbeOptions): ChecksProbe {
  const nonce = options.nonce ?? randomBytes(12).toString('hex');
  const libraries = [
    ...new Set([
      ...WATCHED_LIBRARIES,
      ...(options.requires ?? []).filter((m) => libraryOfModule(m) !== undefined && m !== 'IPython'),
    ]),
  ].sort();
  const config = {
    ename: options.ename ? normalizeEname(options.ename) : null,
    libraries,
    snapshotFrom: options.snapshotFrom ?? null,
  };
  // JSON string literals are Python string literals too.
  const setup =
    `(lambda s, c: exec(compile(s, "<junobench-checks>", "exec"), {"__name__": "__junobench_checks__", "CONFIG": c}))` +
    `(${JSON.stringify(harnessSource)}, __import__("json").loads(${JSON.stringify(JSON.stringify(config))}))`;
  const finish =
    `__import__("sys").modules["__junobench_checks__"].harness.finish(` +
    `${JSON.stringify(nonce)}, ${options.checks === undefined ? 'None' : JSON.stringify(options.checks)})`;
  return { probe: { setup, finish, finishTimeoutSeconds: CHECKS_FINISH_SECONDS }, nonce };
}
