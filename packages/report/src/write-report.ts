import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, writeFileAtomic, type ProgressListener } from '@junobench/core';
import { GENERATOR } from './render-page.js';
import { planReport, type ReportPlan } from './plan-report.js';
import { readReportData, type ReadReportOptions } from './read-report-data.js';

/**
 * Write the planned pages into `outDir`, replacing it whole: the pages are
 * written into a temporary folder beside it and swapped in, so a reader (or
 * the next build) never sees a report half old, half new.
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

// The output folder is replaced whole: never replace one that holds anything
// but a report this command wrote (a mistyped --out must not delete curated/).
async function assertReplaceable(dest: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dest);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') names = ['?'];
    else throw e;
  }
  if (names.length === 0) return;
  const index = await readFile(path.join(dest, 'index.html'), 'utf8').catch(() => '');
  if (!index.includes(`<meta name="generator" content="${GENERATOR}">`)) {
    throw new JunoError(
      'E_USAGE',
      `refusing to replace ${dest}: it is not empty and not a report written by junobench report`,
      {
        location: { file: dest },
        hint: 'pass --out with a new folder or an earlier report folder (default: curated/report)',
      },
    );
  }
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
