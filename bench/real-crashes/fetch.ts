// bench/real-crashes: bring the notebooks named in corpus.json into a local cache
// (never into the project tree: they are other people's notebooks, not redistributed here).
//
//   npx tsx bench/real-crashes/fetch.ts [--out <dir>] [--mirror <dir>] [--no-data] [--force] [--timeout <s>]
//
//   --out <dir>      cache root (default .junobench-bench/real-crashes, gitignored); notebooks go to
//                    <out>/notebooks/<id>.ipynb, data files of "in-repo" entries to <out>/data/<id>/<repo path>
//   --mirror <dir>   read from bare git snapshots (<dir>/<owner>+<name>/repo[/.git]) with
//                    `git --git-dir <repo> show <commit>:<path>` instead of HTTPS (raw.githubusercontent.com)
//   --no-data        notebooks only
//   --force          fetch again even when a cached copy verifies
//   --timeout <s>    per HTTPS request (default 30)
//
// Every notebook is checked: it must parse as JSON and hold an error output whose ename (and evalue)
// is the entry's. Data is extracted only for "in-repo" entries (their dataFiles); for "gone" entries
// it is withheld on purpose, and "url" entries download their own data when run.
// Prints one line per entry (ok / missing, with the reason) and exits 1 when any entry is missing.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { flag, hasFlag } from '../args.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

/** One crash of the corpus (see README.md for the fields). */
interface Entry {
  id: string;
  repo: string;
  path: string;
  commit: string;
  url: string;
  rawUrl: string;
  license: string;
  ename: string;
  evalue: string;
  libraries: string[];
  data: 'in-repo' | 'url' | 'gone' | 'none';
  dataNote: string;
  why: string;
  crashCell?: number;
  executionCount?: number | null;
  dataFiles?: { path: string; readAs: string }[];
}

const OUT = path.resolve(repoRoot, flag('--out', '.junobench-bench/real-crashes'));
const mirrorFlag = flag('--mirror', '');
const MIRROR = hasFlag('--mirror')
  ? path.resolve(mirrorFlag && !mirrorFlag.startsWith('--') ? mirrorFlag : '/work/.mirror')
  : undefined;
const WITH_DATA = !hasFlag('--no-data');
const FORCE = hasFlag('--force');
const TIMEOUT_MS = Number(flag('--timeout', '30')) * 1000;

/** The raw URL of a file of a repository at a commit (each path segment percent-encoded). */
function rawUrl(repo: string, commit: string, file: string): string {
  return `https://raw.githubusercontent.com/${repo}/${commit}/${file.split('/').map(encodeURIComponent).join('/')}`;
}

/** The git directory of a repository's snapshot in the mirror, or undefined when there is none. */
function mirrorGitDir(mirror: string, repo: string): string | undefined {
  const base = path.join(mirror, repo.replace('/', '+'), 'repo');
  if (existsSync(path.join(base, '.git', 'HEAD'))) return path.join(base, '.git');
  if (existsSync(path.join(base, 'HEAD'))) return base;
  return undefined;
}

async function fromMirror(repo: string, commit: string, file: string): Promise<Buffer> {
  const gitDir = mirrorGitDir(MIRROR!, repo);
  if (!gitDir) throw new Error(`no snapshot of ${repo} under ${MIRROR} (fetch it first)`);
  try {
    const { stdout } = await run('git', ['--git-dir', gitDir, 'show', `${commit}:${file}`], {
      encoding: 'buffer',
      maxBuffer: 512 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`git show ${commit.slice(0, 10)}:${file} in ${gitDir}: ${stderr || String(err)}`);
  }
}

async function fromHttps(url: string): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'follow' });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === 'TimeoutError'
        ? `no answer in ${TIMEOUT_MS / 1000} s`
        : (e.cause?.code ?? e.cause?.message ?? e.message);
    throw new Error(`cannot reach ${new URL(url).host} (${why}); offline? use --mirror <dir> with fetched snapshots`);
  }
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${url}`);
  return Buffer.from(await res.arrayBuffer());
}

/** A file of the entry's repository at its commit; `url` is used over HTTPS when given (the entry's rawUrl). */
function get(repo: string, commit: string, file: string, url?: string): Promise<Buffer> {
  return MIRROR ? fromMirror(repo, commit, file) : fromHttps(url ?? rawUrl(repo, commit, file));
}

/** Why a notebook does not hold the entry's crash, or undefined when it does. */
function checkNotebook(bytes: Buffer, e: Entry): string | undefined {
  let nb: unknown;
  try {
    nb = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  const cells = (nb as { cells?: unknown }).cells;
  if (!Array.isArray(cells)) return 'not a notebook (no cells)';
  const errors: { ename?: unknown; evalue?: unknown }[] = [];
  for (const cell of cells as { outputs?: unknown }[]) {
    if (!Array.isArray(cell.outputs)) continue;
    for (const o of cell.outputs as { output_type?: unknown; ename?: unknown; evalue?: unknown }[]) {
      if (o.output_type === 'error') errors.push(o);
    }
  }
  if (errors.length === 0) return 'no error output';
  const sameName = errors.filter((o) => o.ename === e.ename);
  if (sameName.length === 0) return `no ${e.ename} output (has ${[...new Set(errors.map((o) => o.ename))].join(', ')})`;
  if (!sameName.some((o) => o.evalue === e.evalue)) return `no ${e.ename} with the recorded evalue`;
  return undefined;
}

async function writeAtomic(file: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.part-${process.pid}`;
  await writeFile(tmp, bytes);
  await rename(tmp, file);
}

async function cachedOk(file: string, check: (b: Buffer) => string | undefined): Promise<boolean> {
  if (FORCE || !existsSync(file)) return false;
  return check(await readFile(file)) === undefined;
}

/** A repository path made safe to place under a folder (no absolute or parent parts). */
function safeRelative(p: string): string {
  const norm = path.posix.normalize(p.replace(/\\/g, '/'));
  if (norm.startsWith('/') || norm === '..' || norm.startsWith('../')) throw new Error(`unsafe data path ${p}`);
  return norm;
}

async function fetchEntry(e: Entry): Promise<{ ok: boolean; detail: string }> {
  const nbFile = path.join(OUT, 'notebooks', `${e.id}.ipynb`);
  const check = (b: Buffer): string | undefined => checkNotebook(b, e);
  let how = 'cached';
  if (!(await cachedOk(nbFile, check))) {
    let bytes: Buffer;
    try {
      bytes = await get(e.repo, e.commit, e.path, e.rawUrl);
    } catch (err) {
      return { ok: false, detail: (err as Error).message };
    }
    const bad = check(bytes);
    if (bad) return { ok: false, detail: `notebook does not hold the crash: ${bad}` };
    await writeAtomic(nbFile, bytes);
    how = MIRROR ? 'mirror' : 'https';
  }
  const notes = [`${how}, ${e.ename}`];
  if (WITH_DATA && e.data === 'in-repo') {
    let n = 0;
    for (const d of e.dataFiles ?? []) {
      const target = path.join(OUT, 'data', e.id, safeRelative(d.path));
      if (!FORCE && existsSync(target) && (await stat(target)).size > 0) {
        n++;
        continue;
      }
      try {
        await writeAtomic(target, await get(e.repo, e.commit, d.path));
        n++;
      } catch (err) {
        return { ok: false, detail: `data ${d.path}: ${(err as Error).message}` };
      }
    }
    notes.push(`${n} data file${n === 1 ? '' : 's'}`);
  } else if (e.data === 'gone') {
    notes.push('data withheld');
  }
  return { ok: true, detail: notes.join(', ') };
}

async function main(): Promise<void> {
  const entries = JSON.parse(await readFile(path.join(here, 'corpus.json'), 'utf8')) as Entry[];
  console.log(
    `${entries.length} notebooks from ${MIRROR ? `the mirror ${MIRROR}` : 'raw.githubusercontent.com'} into ${OUT.startsWith(repoRoot + path.sep) ? path.relative(repoRoot, OUT) : OUT}`,
  );
  let missing = 0;
  // A few at a time: polite to the server, and a mirror read is one git process each.
  const results: { e: Entry; r: { ok: boolean; detail: string } }[] = [];
  const queue = [...entries];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let e = queue.shift(); e; e = queue.shift()) results.push({ e, r: await fetchEntry(e) });
    }),
  );
  results.sort((a, b) => a.e.id.localeCompare(b.e.id));
  for (const { e, r } of results) {
    if (!r.ok) missing++;
    console.log(`${e.id}  ${r.ok ? 'ok     ' : 'missing'}  ${e.repo}/${e.path}  (${r.detail})`);
  }
  console.log(`${entries.length - missing} ok, ${missing} missing`);
  if (missing > 0) process.exitCode = 1;
}

await main();
