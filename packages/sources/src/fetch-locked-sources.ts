import { randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  compareCodePoints,
  formatBytes,
  hashInstanceTree,
  isJunoError,
  readInstanceTree,
  sha256,
  type LockedInstance,
  type ProgressListener,
  type SourceFile,
  type SourcesLock,
} from '@junobench/core';
import { fetchGithubNotebook } from './collect-github.js';
import { KERNEL_METADATA_FILE } from './collect-kaggle.js';
import { datasetCacheDir, fetchKaggleData, fullDataCacheDir, sourcesCacheDir } from './fetch-kaggle-data.js';
import type { GithubClient } from './github-client.js';
import type { KaggleCli } from './kaggle-cli.js';
import { parseGithubNotebookRef } from './parse-source-ref.js';

export interface FetchTask {
  instance: string;
  platform: 'kaggle' | 'github';
  what: 'notebook' | 'dataset' | 'competition';
  ref: string;
  /** The notebook's file name, or the dataset's mount folder. */
  name: string;
  expected: { sha256?: string; treeSha256?: string; files?: SourceFile[] };
}

export interface SourcesFetchPlan {
  tasks: FetchTask[];
  /** Instances asked for that the lock does not know (embedded or local instances: nothing to fetch). */
  notLocked: string[];
  /** Inputs recorded but never fetched (kernel outputs), per instance. */
  notFetchable: { instance: string; ref: string; reason: string }[];
  /** Full data to assemble once every dataset of the instance checks out. */
  fullData: { instance: string; sha256: string; parts: { mount: string; treeSha256: string }[] }[];
}

/**
 * Pure: what `sources fetch` will download and the hashes each download must
 * have (from the lock), for the given instances or all locked ones.
 */
export function planSourcesFetch(lock: SourcesLock, ids?: readonly string[]): SourcesFetchPlan {
  const wanted = ids && ids.length > 0 ? [...ids] : Object.keys(lock.instances).sort(compareCodePoints);
  const plan: SourcesFetchPlan = { tasks: [], notLocked: [], notFetchable: [], fullData: [] };
  for (const id of wanted) {
    const entry: LockedInstance | undefined = lock.instances[id];
    if (!entry) {
      plan.notLocked.push(id);
      continue;
    }
    plan.tasks.push({
      instance: id,
      platform: entry.platform,
      what: 'notebook',
      ref: entry.notebook.ref,
      name: entry.notebook.file,
      expected: { sha256: entry.notebook.sha256 },
    });
    const parts: { mount: string; treeSha256: string }[] = [];
    let complete = true;
    for (const d of entry.datasets) {
      if (d.kind === 'kernel-output') {
        plan.notFetchable.push({ instance: id, ref: d.ref, reason: 'kernel outputs are recorded, not downloaded' });
        continue;
      }
      if (!d.treeSha256) {
        plan.notFetchable.push({
          instance: id,
          ref: d.ref,
          reason: 'the lock has no hash for it (collected without --with-data)',
        });
        complete = false;
        continue;
      }
      plan.tasks.push({
        instance: id,
        platform: entry.platform,
        what: d.kind,
        ref: d.ref,
        name: d.mount,
        expected: { treeSha256: d.treeSha256, ...(d.files ? { files: d.files } : {}) },
      });
      parts.push({ mount: d.mount, treeSha256: d.treeSha256 });
    }
    if (entry.data && complete && parts.length > 0)
      plan.fullData.push({ instance: id, sha256: entry.data.sha256, parts });
  }
  return plan;
}

export interface FileChange {
  path: string;
  change: 'changed' | 'added' | 'removed';
  expected?: string;
  actual?: string;
  expectedBytes?: number;
  actualBytes?: number;
}

export interface FetchOutcome {
  task: FetchTask;
  status: 'ok' | 'drift' | 'error';
  /** One line: what was found. */
  detail: string;
  /** Per-file differences of a drifted dataset. */
  changes?: FileChange[];
  bytes?: number;
}

export interface SourcesFetchReport {
  plan: SourcesFetchPlan;
  outcomes: FetchOutcome[];
  /** Per instance with full data: where it is in the cache, or why not. */
  fullData: { instance: string; status: 'ready' | 'not-assembled' | 'drift'; dir?: string; detail: string }[];
}

export interface FetchLockedSourcesOptions {
  /** Created on first use: a lock without Kaggle entries needs no Kaggle CLI. */
  kaggle: () => Promise<KaggleCli>;
  github: () => GithubClient;
  env: NodeJS.ProcessEnv;
  cacheDir: string;
  onProgress?: ProgressListener;
}

/** Pure: the differences between the locked files of a dataset and the fetched ones. */
export function compareFileLists(expected: readonly SourceFile[], actual: readonly SourceFile[]): FileChange[] {
  const a = new Map(actual.map((f) => [f.path, f]));
  const e = new Map(expected.map((f) => [f.path, f]));
  const out: FileChange[] = [];
  for (const f of expected) {
    const got = a.get(f.path);
    if (!got) out.push({ path: f.path, change: 'removed', expected: f.sha256, expectedBytes: f.bytes });
    else if (got.sha256 !== f.sha256)
      out.push({
        path: f.path,
        change: 'changed',
        expected: f.sha256,
        actual: got.sha256,
        expectedBytes: f.bytes,
        actualBytes: got.bytes,
      });
  }
  for (const f of actual)
    if (!e.has(f.path)) out.push({ path: f.path, change: 'added', actual: f.sha256, actualBytes: f.bytes });
  return out.sort((x, y) => compareCodePoints(x.path, y.path));
}

/**
 * `junobench sources fetch`: download every locked notebook and dataset
 * again into the cache and check each against the lock. A different upstream
 * file is drift, reported with the instance and the file — the lock and the
 * instance are never changed, and the fetched bytes go to the cache under
 * their own hash (nothing is replaced). When all datasets of an instance
 * check out, its full data/ is assembled in `<cache>/sources/full/<hash>/`,
 * where `build`'s data stage finds it. Missing credentials end the run (exit
 * 3); other failures of one item are reported and the rest go on.
 */
export async function fetchLockedSources(
  plan: SourcesFetchPlan,
  options: FetchLockedSourcesOptions,
): Promise<SourcesFetchReport> {
  const outcomes: FetchOutcome[] = [];
  let kaggle: KaggleCli | undefined;
  const getKaggle = async () => (kaggle ??= await options.kaggle());
  for (const [i, task] of plan.tasks.entries()) {
    options.onProgress?.({
      task: 'sources fetch',
      done: i,
      total: plan.tasks.length,
      item: `${task.instance} ${task.what} ${task.ref}`,
    });
    try {
      outcomes.push(
        task.what === 'notebook'
          ? await fetchNotebook(task, options, getKaggle)
          : await fetchData(task, options, getKaggle),
      );
    } catch (e) {
      if (isJunoError(e) && (e.exitCode === 3 || e.code === 'E_SOURCE_AUTH')) throw e;
      const message = isJunoError(e) ? e.message : (e as Error).message;
      outcomes.push({ task, status: 'error', detail: message });
    }
  }
  options.onProgress?.({ task: 'sources fetch', done: plan.tasks.length, total: plan.tasks.length });

  const fullData: SourcesFetchReport['fullData'] = [];
  for (const f of plan.fullData) {
    const own = outcomes.filter((o) => o.task.instance === f.instance && o.task.what !== 'notebook');
    if (own.some((o) => o.status !== 'ok')) {
      fullData.push({
        instance: f.instance,
        status: 'not-assembled',
        detail: 'a dataset drifted or failed: the full data was not assembled',
      });
      continue;
    }
    const dir = fullDataCacheDir(options.cacheDir, f.sha256);
    if (await exists(dir)) {
      fullData.push({ instance: f.instance, status: 'ready', dir, detail: 'already in the cache' });
      continue;
    }
    const got = await assembleFullData(f.parts, options.cacheDir, { link: true });
    if (got.sha256 !== f.sha256) {
      await rm(got.dir, { recursive: true, force: true });
      fullData.push({
        instance: f.instance,
        status: 'drift',
        detail: `the assembled data/ has tree hash ${got.sha256.slice(0, 12)}…, the lock says ${f.sha256.slice(0, 12)}…`,
      });
      continue;
    }
    await mkdir(path.dirname(dir), { recursive: true });
    await rename(got.dir, dir).catch(async (e: unknown) => {
      if (!(await exists(dir))) throw e;
      await rm(got.dir, { recursive: true, force: true });
    });
    fullData.push({
      instance: f.instance,
      status: 'ready',
      dir,
      detail: `assembled (${got.files} file${got.files === 1 ? '' : 's'}, ${formatBytes(got.bytes, { units: 'si' })})`,
    });
  }
  return { plan, outcomes, fullData };
}

/**
 * Put the cached datasets together as an instance's data/ lays them out
 * (`<mount>/<files>`) in a new folder of the cache, and hash it. `link`
 * hard-links files from the cache (falling back to copies) — for the cache's
 * own full-data copies, never for an instance's data/.
 */
export async function assembleFullData(
  parts: readonly { mount: string; treeSha256: string }[],
  cacheDir: string,
  options: { link?: boolean; dest?: string } = {},
): Promise<{ dir: string; sha256: string; files: number; bytes: number }> {
  const dir = options.dest ?? path.join(sourcesCacheDir(cacheDir), 'tmp', `full-${randomBytes(6).toString('hex')}`);
  let files = 0;
  let bytes = 0;
  await mkdir(dir, { recursive: true });
  for (const p of parts) {
    const src = datasetCacheDir(cacheDir, p.treeSha256);
    if (!(await exists(src))) {
      throw new JunoError('E_STATE', `dataset ${p.mount} (tree ${p.treeSha256.slice(0, 12)}…) is not in the cache`, {
        location: { file: src },
        hint: 'collect the notebook again with --with-data, or run `junobench sources fetch <instance>`',
      });
    }
    for (const f of await readInstanceTree(src)) {
      const to = path.join(dir, p.mount, ...f.rel.split('/'));
      await mkdir(path.dirname(to), { recursive: true });
      if (options.link) await link(f.abs, to).catch(() => copyFile(f.abs, to));
      else await copyFile(f.abs, to);
      files++;
      bytes += f.size;
    }
  }
  return { dir, sha256: await hashInstanceTree(dir), files, bytes };
}

async function fetchNotebook(
  task: FetchTask,
  options: FetchLockedSourcesOptions,
  getKaggle: () => Promise<KaggleCli>,
): Promise<FetchOutcome> {
  let content: Buffer;
  let note = '';
  if (task.platform === 'github') {
    const ref = parseGithubNotebookRef(task.ref);
    const fetched = await fetchGithubNotebook(options.github(), ref, options.env);
    content = fetched.content;
    note = ` (${fetched.requestedRef} at ${fetched.commit.slice(0, 12)})`;
  } else {
    const work = path.join(sourcesCacheDir(options.cacheDir), 'tmp', `kernel-${randomBytes(6).toString('hex')}`);
    try {
      await (await getKaggle()).pullKernel(task.ref, work);
      const meta = JSON.parse(await readFile(path.join(work, KERNEL_METADATA_FILE), 'utf8')) as { code_file?: unknown };
      const file =
        typeof meta.code_file === 'string' && /^[A-Za-z0-9][A-Za-z0-9 ._()-]{0,199}$/.test(meta.code_file)
          ? meta.code_file
          : task.name;
      content = await readFile(path.join(work, file));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const got = sha256(content);
  // Keep what upstream serves under its own hash: evidence for the drift, never a replacement.
  const keep = path.join(sourcesCacheDir(options.cacheDir), 'notebooks', `${got}.ipynb`);
  if (!(await exists(keep))) {
    await mkdir(path.dirname(keep), { recursive: true });
    await writeFile(keep, content);
  }
  if (got === task.expected.sha256)
    return { task, status: 'ok', detail: `sha256 ${got.slice(0, 12)}… as locked${note}`, bytes: content.byteLength };
  return {
    task,
    status: 'drift',
    detail: `changed upstream${note}: sha256 ${got.slice(0, 12)}…, locked ${task.expected.sha256?.slice(0, 12)}… (upstream copy kept at ${keep})`,
    changes: [
      {
        path: task.name,
        change: 'changed',
        expected: task.expected.sha256!,
        actual: got,
        actualBytes: content.byteLength,
      },
    ],
    bytes: content.byteLength,
  };
}

async function fetchData(
  task: FetchTask,
  options: FetchLockedSourcesOptions,
  getKaggle: () => Promise<KaggleCli>,
): Promise<FetchOutcome> {
  if (task.platform !== 'kaggle')
    throw new JunoError('E_SOURCE', `${task.what} ${task.ref}: only Kaggle data can be fetched`);
  const what = task.what === 'competition' ? 'competition' : 'dataset';
  const data = await fetchKaggleData(what, task.ref, {
    cli: await getKaggle(),
    cacheDir: options.cacheDir,
    onBytes: (b) =>
      options.onProgress?.({ task: 'download', done: b, item: task.ref, message: formatBytes(b, { units: 'si' }) }),
  });
  if (data.treeSha256 === task.expected.treeSha256) {
    return {
      task,
      status: 'ok',
      detail: `${data.files.length} file${data.files.length === 1 ? '' : 's'}, ${formatBytes(data.bytes, { units: 'si' })}, tree ${data.treeSha256.slice(0, 12)}… as locked`,
      bytes: data.bytes,
    };
  }
  const changes = task.expected.files ? compareFileLists(task.expected.files, data.files) : [];
  const list = changes.map((c) => `${c.path} ${c.change}`).join(', ');
  return {
    task,
    status: 'drift',
    detail: `changed upstream: ${list || `tree ${data.treeSha256.slice(0, 12)}…, locked ${task.expected.treeSha256?.slice(0, 12)}…`}`,
    changes,
    bytes: data.bytes,
  };
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
