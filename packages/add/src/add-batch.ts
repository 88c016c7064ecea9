// `junobench add` on many notebooks, a folder, or the records of a pool sample
// (`--pool`): each item drafted and triaged on its own, an item that fails
// reported with its reason while the batch goes on, and the triage report
// (schemas/triage-report.schema.json) written after each item, which is also
// what a rerun resumes from. README, "Reproducing real crashes".
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  compareCodePoints,
  readJsonFile,
  writeJsonAtomic,
  type CrashRecord,
  type ProgressListener,
  type TriageEntry,
  type TriageFunnel,
  type TriageReport,
} from '@junobench/core';
import type { AddInstanceResult } from './add-instance.js';

export interface BatchItem {
  key: string;
  label: string;
  /** A notebook file or source folder. */
  input?: string;
  /** A pool record (`--pool`): its notebook is collected by its URL. */
  record?: CrashRecord;
}

/** Pure: every `.ipynb` under a folder, sorted (checkpoints and hidden folders left out). */
export async function listNotebookFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of (await readdir(d, { withFileTypes: true })).sort((a, b) => compareCodePoints(a.name, b.name))) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && e.name.endsWith('.ipynb')) out.push(p);
    }
  };
  await walk(dir);
  return out;
}

/**
 * The batch's items from the inputs as given: a notebook file or a source
 * record folder is one item; any other folder is every notebook in it.
 */
export async function planBatchItems(
  inputs: readonly string[],
  isSourceFolder: (dir: string) => Promise<boolean>,
): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  for (const input of inputs) {
    const abs = path.resolve(input);
    const st = await stat(abs).catch((e: unknown) => {
      throw new JunoError('E_INPUT_NOT_FOUND', 'no such notebook or source folder', {
        location: { file: input },
        hint: 'give a .ipynb file, a folder of notebooks, or a folder written by `junobench collect` (raw/sources/<platform>/<owner>/<name>)',
        cause: e,
      });
    });
    if (st.isDirectory() && !(await isSourceFolder(abs))) {
      const found = await listNotebookFiles(abs);
      if (found.length === 0) {
        throw new JunoError('E_INPUT_EMPTY', 'the folder holds no .ipynb notebook', {
          location: { file: input },
          hint: 'give notebooks, a folder of them, or a source folder written by `junobench collect`',
        });
      }
      for (const f of found) items.push({ key: f, label: path.relative(process.cwd(), f) || f, input: f });
    } else items.push({ key: abs, label: input, input: abs });
  }
  return items;
}

/** Pure: a pool sample's records as batch items (first `limit` of them), keyed by record id. */
export function planPoolItems(records: readonly CrashRecord[], limit?: number): BatchItem[] {
  return records
    .slice(0, limit ?? records.length)
    .map((r) => ({ key: `record:${r.id}`, label: `${r.id} (${r.notebook})`, record: r }));
}

/** Pure: the funnel of a batch's entries. */
export function planFunnel(entries: readonly TriageEntry[]): TriageFunnel {
  const byCause: Record<string, number> = {};
  for (const e of entries) if (e.cause) byCause[e.cause] = (byCause[e.cause] ?? 0) + 1;
  const count = (s: TriageEntry['status']) => entries.filter((e) => e.status === s).length;
  return {
    records: entries.length,
    notebooks: entries.filter((e) => e.status !== 'unavailable').length,
    drafts: count('drafted'),
    reproduced: entries.filter((e) => e.reproduced === true).length,
    byCause,
    unavailable: count('unavailable'),
    refused: count('refused'),
    failed: count('failed'),
  };
}

export interface RunAddBatchOptions {
  inputs: readonly string[];
  /** The triage report, and the batch's resume state. */
  reportFile: string;
  addOne: (item: BatchItem) => Promise<TriageEntry>;
  onProgress?: ProgressListener;
  /** Called after each item (done now or earlier), in order. */
  onEntry?: (entry: TriageEntry, resumed: boolean) => void;
}

/**
 * Run `addOne` on each item not already in the report (a rerun after an
 * interruption redoes nothing that finished; an item that failed
 * unexpectedly is tried again), writing the report after each item.
 */
export async function runAddBatch(items: readonly BatchItem[], options: RunAddBatchOptions): Promise<TriageReport> {
  const previous = await readPrevious(options.reportFile);
  const done = new Map(previous.filter((e) => e.status !== 'failed').map((e) => [e.key, e]));
  const entries: TriageEntry[] = [];
  const write = async () => {
    const kept = [...entries, ...[...done.values()].filter((e) => !items.some((i) => i.key === e.key))];
    const report: TriageReport = { inputs: [...options.inputs], entries: kept, funnel: planFunnel(kept) };
    await writeJsonAtomic(options.reportFile, report, { schema: 'triage-report' });
    return report;
  };
  let report = await write();
  for (const [i, item] of items.entries()) {
    options.onProgress?.({ task: 'add', done: i, total: items.length, item: item.label });
    const had = done.get(item.key);
    if (had) {
      entries.push(had);
      options.onEntry?.(had, true);
      continue;
    }
    let entry: TriageEntry;
    try {
      entry = await options.addOne(item);
    } catch (e) {
      entry =
        e instanceof JunoError
          ? { key: item.key, label: item.label, status: 'refused', reason: e.message }
          : {
              key: item.key,
              label: item.label,
              status: 'failed',
              reason: `${(e as Error).name}: ${(e as Error).message}`,
            };
    }
    entries.push(entry);
    options.onEntry?.(entry, false);
    report = await write();
  }
  options.onProgress?.({ task: 'add', done: items.length, total: items.length });
  return report;
}

async function readPrevious(file: string): Promise<TriageEntry[]> {
  const exists = await stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!exists) return [];
  const r = await readJsonFile<TriageReport>(file, { schema: 'triage-report' });
  return r.entries;
}

/** Whether a source error means the notebook cannot be had (gone, private, no such ref). */
export function isUnavailable(e: unknown): boolean {
  return e instanceof JunoError && ['E_SOURCE_NOT_FOUND', 'E_SOURCE_FORBIDDEN', 'E_SOURCE_AUTH'].includes(e.code);
}

/** Pure: which collector takes a record's notebook URL, or why none does. */
export function planRecordSource(
  record: Pick<CrashRecord, 'url' | 'source'>,
): { platform: 'kaggle' | 'github'; ref: string } | { unavailable: string } {
  const url = record.url?.trim();
  if (!url) return { unavailable: 'the record has no notebook URL' };
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return { unavailable: `the record's notebook URL is not a URL: ${url}` };
  }
  if (host === 'kaggle.com' || host.endsWith('.kaggle.com')) return { platform: 'kaggle', ref: url };
  if (host === 'github.com' || host.endsWith('.github.com')) return { platform: 'github', ref: url };
  return { unavailable: `no collector for ${host} (Kaggle and GitHub notebooks only)` };
}

export interface PoolRecordOptions {
  collect: (platform: 'kaggle' | 'github', ref: string) => Promise<string>;
  add: (input: string, recorded: { ename: string; evalue: string; traceback: string[] }) => Promise<AddInstanceResult>;
}

/** One pool record: its notebook collected by its URL, its recorded crash drafted and triaged. */
export async function addPoolRecord(item: BatchItem, options: PoolRecordOptions): Promise<TriageEntry> {
  const r = item.record!;
  const base = { key: item.key, label: item.label, ...(r.url ? { url: r.url } : {}) };
  const where = planRecordSource(r);
  if ('unavailable' in where) return { ...base, status: 'unavailable', reason: where.unavailable };
  let dir: string;
  try {
    dir = await options.collect(where.platform, where.ref);
  } catch (e) {
    if (isUnavailable(e)) return { ...base, status: 'unavailable', reason: (e as JunoError).message };
    throw e;
  }
  const result = await options.add(dir, { ename: r.ename, evalue: r.evalue, traceback: r.traceback });
  return entryOfResult(item, result, base);
}

/** Pure: a batch entry from what `add` did with one item. */
export function entryOfResult(
  item: BatchItem,
  result: AddInstanceResult,
  base: Partial<TriageEntry> = {},
): TriageEntry {
  const i = result.plan.instance;
  return {
    key: item.key,
    label: item.label,
    ...base,
    status: 'drafted',
    id: result.plan.id,
    ...(result.reproduces !== undefined ? { reproduced: result.reproduces } : {}),
    ...(result.triage ? { cause: result.triage.cause, detail: result.triage.detail } : {}),
    ...(i.data?.synthetic ? { synthetic: true } : {}),
    edits: i.reproduction?.edits?.length ?? 0,
  };
}
