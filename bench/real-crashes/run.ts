// bench/real-crashes: run `junobench add` (local runtime) on every notebook of the corpus and write results.md.
//
//   npx tsx bench/real-crashes/run.ts [--label after] [--bin <junobench.js>] [--jobs 1|2] [--only gh-001,gh-002]
//                                     [--redo] [--report-only] [--cache <dir>] [--entry-timeout <s>]
//
//   --label <name>     which measurement this is: `after` (this checkout, the default) or `before` (another
//                      checkout's binary, e.g. a worktree of the landed code: `--label before --bin <wt>/packages/cli/bin/junobench.js`)
//   --bin <file>       the junobench binary to run (default: this checkout's packages/cli/bin/junobench.js)
//   --jobs <n>         entries run at once (1 or 2: the machine is shared)
//   --only <ids>       only these entries (comma-separated)
//   --redo             run entries again even if they have a result
//   --report-only      write results.md from the results at hand, run nothing
//   --cache <dir>      where fetch.ts put the corpus (default .junobench-bench/real-crashes); results go to
//                      <cache>/runs/<label>/<id>.json, one per entry: a rerun skips entries that have one (resumable)
//
// After a pass, the label's results are also written to bench/real-crashes/runs/<label>.json, which is committed:
// results.md is written from those files and the cache's runs, so it can be written again on another machine (the
// cache, with the notebooks and each entry's output, is never committed). A rerun skips entries found in either.
//
// Each entry runs in a fresh temporary project (raw/instances, a cache of its own). In-repo data is given with
// --data, under the file name the notebook reads (when the binary has --data); data that is gone is withheld.
// The figures go to bench/real-crashes/results.md, with both labels side by side when both were measured; what a
// person checking the causes found is in review.json and is merged into the report.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mineNotebookCrashes, parseNotebook } from '@junobench/notebook';
import { assignSplit } from '@junobench/suggest';
import { flag, hasFlag } from '../args.js';
import { writeResults, type Entry, type EntryResult, type Review } from './results.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
/** Each label's results, committed (a label per file): the report is written from these and the local cache. */
const COMMITTED = path.join(here, 'runs');
const CACHE = path.resolve(repoRoot, flag('--cache', '.junobench-bench/real-crashes'));
const LABEL = flag('--label', 'after');
const BIN = path.resolve(flag('--bin', path.join(repoRoot, 'packages/cli/bin/junobench.js')));
const JOBS = Math.min(2, Math.max(1, Number(flag('--jobs', '1'))));
const ONLY = new Set(flag('--only', '').split(',').filter(Boolean));
const ENTRY_TIMEOUT_MS = Number(flag('--entry-timeout', '1500')) * 1000;
/** The corpus' own dev/held-out split (by a seeded hash of the id): mechanisms are studied on dev entries only. */
export const CORPUS_SPLIT = { seed: 'junobench-real-crashes-1', heldOutFraction: 0.5 };

function runBin(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      stderr += `\n[run.ts] killed after ${ENTRY_TIMEOUT_MS / 1000} s`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, ENTRY_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 137 : -1), stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

async function helpOf(): Promise<string> {
  const r = await runBin(['add', '--help'], repoRoot, process.env);
  return r.stdout;
}

/** `--crash n` when the notebook saved several errors: the one the entry names (its cell, class and message). */
function crashNumber(entry: Entry, nbText: string): number | undefined {
  let nb: ReturnType<typeof parseNotebook>;
  try {
    nb = parseNotebook(nbText, `${entry.id}.ipynb`, { repairIds: { repaired: 0 } });
  } catch {
    // A notebook the toolchain refuses: `add` says why (exit 2), which is the entry's outcome.
    return undefined;
  }
  const crashes = mineNotebookCrashes(nb);
  if (crashes.length <= 1) return undefined;
  // crashCell counts every cell; a mined crash names its code cell.
  let code = -1;
  let codeOfCrash = -1;
  nb.cells.forEach((c, i) => {
    if (c.cell_type === 'code') code++;
    if (i === entry.crashCell) codeOfCrash = code;
  });
  const i = crashes.findIndex(
    (c) => c.codeCell === codeOfCrash && c.ename.split('.').pop() === entry.ename.split('.').pop(),
  );
  return i >= 0 ? i + 1 : crashes.findIndex((c) => c.evalue === entry.evalue) + 1 || undefined;
}

function parseRun(
  entry: Entry,
  r: { code: number; stdout: string; stderr: string; ms: number },
  instance: unknown,
): EntryResult {
  const out = r.stdout;
  const line = (name: string) => new RegExp(`^  ${name} +(.*)$`, 'm').exec(out)?.[1];
  const verify = line('verify') ?? '';
  const cause = line('cause');
  const inst = instance as
    | {
        triage?: { cause: string; detail: string; next: string };
        suggestedLabels?: { library?: { value: string } };
        data?: { synthetic?: { files: string[] } };
        crash?: { match: string };
        reproduction?: { edits?: { kind: string }[] };
      }
    | undefined;
  const reproduced = r.code === 0 && /^crash reproduced as mined/.test(verify);
  const outcome: EntryResult['outcome'] = reproduced
    ? 'reproduced'
    : r.code === 2
      ? 'refused'
      : r.code === 1 || r.code === 0
        ? /^not run here/.test(verify)
          ? 'skipped-env'
          : 'not-reproduced'
        : 'error';
  const firstError = (
    r.stderr.split('\n').find((l) => /^error|Error/.test(l)) ??
    r.stderr.trim().split('\n').pop() ??
    ''
  ).slice(0, 300);
  return {
    id: entry.id,
    exitCode: r.code,
    outcome,
    ...(inst?.triage
      ? { cause: inst.triage.cause, detail: inst.triage.detail, next: inst.triage.next }
      : cause
        ? { cause: cause.split(' — ')[0]!, detail: cause.split(' — ').slice(1).join(' — ') }
        : {}),
    verify: verify.slice(0, 400),
    ...(outcome === 'refused' || outcome === 'error' ? { error: firstError } : {}),
    ...(inst?.suggestedLabels?.library ? { suggestedLibrary: inst.suggestedLabels.library.value } : {}),
    synthetic: inst?.data?.synthetic?.files ?? [],
    ...(inst?.crash ? { match: inst.crash.match } : {}),
    edits: (inst?.reproduction?.edits ?? []).map((e) => e.kind),
    durationMs: r.ms,
  };
}

async function runEntry(entry: Entry, features: { data: boolean }, resultsDir: string): Promise<EntryResult> {
  const nbFile = path.join(CACHE, 'notebooks', `${entry.id}.ipynb`);
  const proj = await mkdtemp(path.join(os.tmpdir(), `jb-real-${entry.id}-`));
  try {
    await mkdir(path.join(proj, 'raw', 'instances'), { recursive: true });
    const args = ['add', nbFile, '--runtime', 'local', '--id', entry.id.replace(/-/g, '_')];
    const n = crashNumber(entry, await readFile(nbFile, 'utf8'));
    if (n !== undefined) args.push('--crash', String(n));
    if (features.data && entry.data === 'in-repo') {
      // Each file under the name the notebook reads it by (the draft finds it in data/ by that name).
      const staged = path.join(proj, 'inputs');
      for (const f of entry.dataFiles ?? []) {
        const name = f.readAs.replace(/\\/g, '/').split('/').filter(Boolean).pop()!;
        const to = path.join(staged, name);
        await mkdir(staged, { recursive: true });
        await copyFile(path.join(CACHE, 'data', entry.id, ...f.path.split('/')), to);
        args.push('--data', to);
      }
    }
    const env = { ...process.env, JUNOBENCH_CACHE_DIR: path.join(proj, 'cache'), FORCE_COLOR: '0', NO_COLOR: '1' };
    const r = await runBin(args, proj, env);
    const instFile = path.join(proj, 'raw', 'instances', entry.id.replace(/-/g, '_'), 'instance.json');
    const instance = existsSync(instFile) ? JSON.parse(await readFile(instFile, 'utf8')) : undefined;
    const result = parseRun(entry, r, instance);
    await writeFile(
      path.join(resultsDir, `${entry.id}.log`),
      `$ junobench ${args.join(' ')}\nexit ${r.code}\n${r.stdout}\n--- stderr\n${r.stderr}`,
    );
    return result;
  } finally {
    await rm(proj, { recursive: true, force: true });
  }
}

/**
 * Every label's results: the committed summaries (runs/<label>.json, one array per label, so that results.md can be
 * written again on any machine) with this machine's cache (<cache>/runs/<label>/<id>.json) over them, entry by entry.
 */
async function readLabels(cacheRuns: string): Promise<Record<string, Map<string, EntryResult>>> {
  const labels: Record<string, Map<string, EntryResult>> = {};
  for (const f of existsSync(COMMITTED) ? await readdir(COMMITTED) : []) {
    if (!f.endsWith('.json')) continue;
    const rows = JSON.parse(await readFile(path.join(COMMITTED, f), 'utf8')) as EntryResult[];
    labels[f.slice(0, -'.json'.length)] = new Map(rows.map((r) => [r.id, r]));
  }
  for (const label of existsSync(cacheRuns) ? await readdir(cacheRuns) : []) {
    const m = (labels[label] ??= new Map());
    for (const f of await readdir(path.join(cacheRuns, label))) {
      if (f.endsWith('.json')) {
        const r = JSON.parse(await readFile(path.join(cacheRuns, label, f), 'utf8')) as EntryResult;
        m.set(r.id, r);
      }
    }
  }
  return labels;
}

/** runs/<label>.json: the label's results sorted by id, written whole (a temporary file renamed over the old one). */
async function writeCommittedRun(label: string, results: Map<string, EntryResult>): Promise<void> {
  await mkdir(COMMITTED, { recursive: true });
  const rows = [...results.values()].sort((a, b) => a.id.localeCompare(b.id));
  const file = path.join(COMMITTED, `${label}.json`);
  await writeFile(`${file}.tmp`, `${JSON.stringify(rows, null, 1)}\n`);
  await rename(`${file}.tmp`, file);
}

async function main(): Promise<void> {
  const corpus = JSON.parse(await readFile(path.join(here, 'corpus.json'), 'utf8')) as Entry[];
  if (!hasFlag('--report-only')) {
    if (!existsSync(path.join(CACHE, 'notebooks')))
      throw new Error(`no corpus under ${CACHE}: run bench/real-crashes/fetch.ts first`);
    const resultsDir = path.join(CACHE, 'runs', LABEL);
    await mkdir(resultsDir, { recursive: true });
    const help = await helpOf();
    const features = { data: help.includes('--data') };
    const committed = (await readLabels(path.join(CACHE, 'runs')))[LABEL];
    const todo = corpus.filter(
      (e) =>
        (ONLY.size === 0 || ONLY.has(e.id)) &&
        (hasFlag('--redo') || (!existsSync(path.join(resultsDir, `${e.id}.json`)) && !committed?.has(e.id))),
    );
    console.log(
      `${LABEL}: ${todo.length} entries to run with ${BIN} (${JOBS} at once; --data ${features.data ? 'given' : 'not supported by this binary'})`,
    );
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const e = todo[next++]!;
        const r = await runEntry(e, features, resultsDir);
        await writeFile(path.join(resultsDir, `${e.id}.json`), `${JSON.stringify(r, null, 2)}\n`);
        console.log(
          `${e.id}  exit ${r.exitCode}  ${r.outcome}${r.cause ? `  ${r.cause}` : ''}  (${(r.durationMs / 1000).toFixed(0)} s)`,
        );
      }
    };
    await Promise.all(Array.from({ length: JOBS }, worker));
  }
  const labels = await readLabels(path.join(CACHE, 'runs'));
  if (Object.values(labels).every((m) => m.size === 0))
    // Without a single measured entry there is nothing to report (and writing results.md would erase the last one).
    throw new Error(
      `no results under ${COMMITTED} or ${path.join(CACHE, 'runs')}: nothing to report. Run the corpus first with` +
        ` \`npx tsx bench/real-crashes/run.ts --jobs 2\` (writes ${path.join(CACHE, 'runs', LABEL)}/<id>.json; the` +
        ` notebooks come from bench/real-crashes/fetch.ts), or pass --cache <dir> to point at a cache that has runs/.`,
    );
  if (!hasFlag('--report-only') && labels[LABEL]) await writeCommittedRun(LABEL, labels[LABEL]);
  const reviewFile = path.join(here, 'review.json');
  const review = existsSync(reviewFile) ? (JSON.parse(await readFile(reviewFile, 'utf8')) as Review) : {};
  const split = new Map(corpus.map((e) => [e.id, assignSplit(e.id, CORPUS_SPLIT)]));
  await writeFile(path.join(here, 'results.md'), writeResults(corpus, labels, review, split));
  console.log(`wrote ${path.relative(process.cwd(), path.join(here, 'results.md'))}`);
}

await main();
