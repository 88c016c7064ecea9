import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  checkSchema,
  compareCodePoints,
  formatJson,
  writeFileAtomic,
  type ProgressListener,
  type ReportManifest,
} from '@junobench/core';
import { GENERATOR } from './render-page.js';
import { planReport, type ReportPlan } from './plan-report.js';
import { readReportData, type ReadReportOptions } from './read-report-data.js';

/** What a report folder holds besides its pages: the list of what `writeReport` wrote there. */
export const REPORT_MANIFEST_FILE = '.junobench-report.json';

// The pages a report written before the manifest existed can hold: such a folder is taken as a report when its index
// carries the generator mark and it holds nothing else.
const PAGE_PATTERN = /^(?:index|stats|triage)\.html$|^instances\/[^/]+\.html$/;

/**
 * Write the planned pages into `outDir`, replacing the report there whole: the
 * pages (and the manifest that lists them) are written into a temporary folder
 * beside it and swapped in, so a reader (or the next build) never sees a
 * report half old, half new. Only a folder that holds nothing but what an
 * earlier report wrote (its manifest's files) is replaced; anything else in it
 * is refused, naming those files, and left as it was.
 */
export async function writeReport(plan: ReportPlan, outDir: string): Promise<void> {
  const dest = path.resolve(outDir);
  await assertReplaceable(dest);
  await mkdir(path.dirname(dest), { recursive: true });
  const tmp = await mkdtemp(path.join(path.dirname(dest), `.${path.basename(dest)}-`));
  try {
    // mkdtemp makes the folder private; a report is for reading.
    await chmod(tmp, 0o755);
    for (const f of plan.files) await writeFileAtomic(path.join(tmp, ...f.path.split('/')), f.content);
    await writeFileAtomic(path.join(tmp, REPORT_MANIFEST_FILE), formatReportManifest(plan));
    const old = `${dest}.old-${process.pid}`;
    await rm(old, { recursive: true, force: true });
    await rename(dest, old).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    await rename(tmp, dest);
    await rm(old, { recursive: true, force: true });
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** The manifest of a planned report: its pages, sorted (the same plan gives the same bytes). */
export function formatReportManifest(plan: Pick<ReportPlan, 'files'>): string {
  const manifest: ReportManifest = {
    generator: GENERATOR,
    files: plan.files.map((f) => f.path).sort(compareCodePoints),
  };
  return formatJson(manifest);
}

/**
 * Pure: the entries of a report folder that no report wrote, as a person would
 * name them (a folder none of whose files is owned is named once, `blog/`).
 * `entries` are the folder's files and empty folders (`x/`), relative and
 * '/'-separated; `owned` says which files a report wrote.
 */
export function findForeignEntries(entries: readonly string[], owned: (rel: string) => boolean): string[] {
  const ownedFiles = entries.filter((e) => !e.endsWith('/') && owned(e));
  const holdsOwned = (dir: string) => ownedFiles.some((f) => f.startsWith(dir));
  const out = new Set<string>();
  for (const e of entries) {
    if (!e.endsWith('/') && owned(e)) continue;
    if (e.endsWith('/') && holdsOwned(e)) continue;
    const top = e.includes('/') ? `${e.split('/')[0]!}/` : e;
    out.add(top !== e && !holdsOwned(top) ? top : e);
  }
  return [...out].sort(compareCodePoints);
}

// Refuse to replace a folder that holds anything but what an earlier report wrote there: a mistyped --out must not
// delete curated/, and files a user put beside the pages (a thesis, a blog) must not vanish with the old report.
async function assertReplaceable(dest: string): Promise<void> {
  let entries: string[];
  try {
    entries = await listEntries(dest);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code !== 'ENOTDIR') throw e;
    throw new JunoError('E_USAGE', `refusing to write the report into ${dest}: it is a file, not a folder`, {
      location: { file: dest },
      hint: 'pass --out with a new folder or an earlier report folder (default: curated/report)',
    });
  }
  if (entries.length === 0) return;
  const manifest = await readManifest(dest);
  const legacy =
    !manifest &&
    (await readFile(path.join(dest, 'index.html'), 'utf8').catch(() => '')).includes(
      `<meta name="generator" content="${GENERATOR}">`,
    );
  const listed = new Set(manifest?.files ?? []);
  const owned = (rel: string) =>
    rel === REPORT_MANIFEST_FILE
      ? manifest !== undefined
      : manifest
        ? listed.has(rel)
        : legacy && PAGE_PATTERN.test(rel);
  const foreign = findForeignEntries(entries, owned);
  if (foreign.length === 0) return;
  const shown = foreign.slice(0, 10).join(', ') + (foreign.length > 10 ? ` and ${foreign.length - 10} more` : '');
  const isReport = manifest !== undefined || legacy;
  throw new JunoError(
    'E_USAGE',
    isReport
      ? `refusing to replace the report in ${dest}: it also holds files junobench report did not write (${shown})`
      : `refusing to replace ${dest}: it is not empty and not a report written by junobench report (it holds ${shown})`,
    {
      location: { file: dest },
      hint: isReport
        ? 'the report folder is replaced whole: move those files out of it, or pass --out with a new folder'
        : 'pass --out with a new folder or an earlier report folder (default: curated/report)',
    },
  );
}

async function readManifest(dir: string): Promise<ReportManifest | undefined> {
  const text = await readFile(path.join(dir, REPORT_MANIFEST_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return checkSchema('report-manifest', value).length === 0 ? (value as ReportManifest) : undefined;
  } catch {
    return undefined;
  }
}

/** Every file (links included, never followed) and every empty folder (`x/`) under `dir`, relative. */
async function listEntries(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(dir)).sort(compareCodePoints)) {
    const rel = `${prefix}${name}`;
    const st = await lstat(path.join(dir, name));
    if (st.isDirectory()) {
      const inner = await listEntries(path.join(dir, name), `${rel}/`);
      out.push(...(inner.length > 0 ? inner : [`${rel}/`]));
    } else {
      out.push(rel);
    }
  }
  return out;
}

export interface GenerateReportOptions extends ReadReportOptions {
  onProgress?: ProgressListener;
}

export interface GenerateReportResult {
  out: string;
  pages: number;
  instances: number;
  bytes: number;
  largestInstancePage?: { path: string; bytes: number };
  /** Instances whose page shows a problem (unreadable notebook, missing folder). */
  problems: { instance: string; problem: string }[];
}

/** `junobench report`: read curated/, plan every page, write the folder. */
export async function generateReport(options: GenerateReportOptions): Promise<GenerateReportResult> {
  const data = await readReportData(options);
  options.onProgress?.({ task: 'report', done: 0, total: data.instances.length });
  const plan = planReport(data);
  await writeReport(plan, options.out);
  options.onProgress?.({ task: 'report', done: data.instances.length, total: data.instances.length });
  const problems = data.instances.flatMap((i) => i.problems.map((problem) => ({ instance: i.id, problem })));
  for (const i of data.instances) {
    for (const [version, slot] of Object.entries(i.notebooks)) {
      if (slot && 'error' in slot) {
        const name = `${version}.ipynb`;
        problems.push({
          instance: i.id,
          problem: slot.error.startsWith(`${name}:`) ? slot.error : `${name}: ${slot.error}`,
        });
      }
    }
  }
  return {
    out: path.resolve(options.out),
    pages: plan.files.length,
    instances: data.instances.length,
    bytes: plan.bytes,
    ...(plan.largestInstancePage ? { largestInstancePage: plan.largestInstancePage } : {}),
    problems,
  };
}
