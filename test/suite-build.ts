// One `junobench build` of the embedded raw/ per test run, shared by the files that need a built benchmark (its
// curated/, its verification of every embedded instance in real kernels, its cache). test/build.e2e.test.ts asserts
// what the build itself did; the others read it, or copy it before they change anything.
//
// The build is made once per run of the suite, whichever file asks first: under JUNOBENCH_TEST_RUN_DIR, which
// tools/run-test-lanes.mjs sets for both lanes (a lock folder keeps a second process from building it again), or, when
// a file runs alone, in a temporary folder of this process.
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, runJunobench, type CliRun } from './run-cli.js';

export interface EmbeddedBuild {
  /** The project folder: raw/ (a copy of the embedded one) and the curated/ the build wrote. Never change it. */
  dir: string;
  /** The build's verification cache (--cache-dir). Never change it. */
  cache: string;
  /** The build as it ran: a cold cache, every stage. */
  run: CliRun;
  /** Seconds it took. */
  seconds: number;
}

let mine: Promise<EmbeddedBuild> | undefined;

/** The suite's build of the embedded raw/, made on first use (minutes: every embedded notebook runs). */
export function embeddedBuild(): Promise<EmbeddedBuild> {
  mine ??= shareBuild();
  return mine;
}

/** A copy of the build's project (raw/, curated/) and cache under `to`, for a test that changes them. */
export async function copyEmbeddedBuild(to: string): Promise<{ dir: string; cache: string }> {
  const b = await embeddedBuild();
  const dir = path.join(to, 'project');
  const cache = path.join(to, 'cache');
  await cp(b.dir, dir, { recursive: true, verbatimSymlinks: true });
  await cp(b.cache, cache, { recursive: true, verbatimSymlinks: true });
  return { dir, cache };
}

async function shareBuild(): Promise<EmbeddedBuild> {
  const runDir = process.env.JUNOBENCH_TEST_RUN_DIR;
  const root = runDir ? path.join(runDir, 'embedded-build') : await mkdtemp(path.join(os.tmpdir(), 'jb-suite-build-'));
  const done = path.join(root, 'done.json');
  await mkdir(path.dirname(root), { recursive: true });
  for (;;) {
    const finished = await readDone(done);
    if (finished) return finished;
    if (await takeLock(`${root}.lock`)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  // Ours to build (again, after a holder that died).
  await rm(root, { recursive: true, force: true });
  const dir = path.join(root, 'project');
  const cache = path.join(root, 'cache');
  await mkdir(dir, { recursive: true });
  await cp(path.join(repoRoot, 'raw'), path.join(dir, 'raw'), { recursive: true });
  const t0 = Date.now();
  const run = await runJunobench(['build', '--cache-dir', cache], { cwd: dir });
  const result: EmbeddedBuild = { dir, cache, run, seconds: (Date.now() - t0) / 1000 };
  await writeFile(`${done}.tmp`, JSON.stringify(result));
  await cp(`${done}.tmp`, done);
  await rm(`${root}.lock`, { recursive: true, force: true });
  return result;
}

async function readDone(file: string): Promise<EmbeddedBuild | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as EmbeddedBuild;
  } catch {
    return undefined;
  }
}

/** The lock folder is ours when we make it, or when the process that made it is gone. */
async function takeLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
    await writeFile(path.join(lock, 'pid'), String(process.pid));
    return true;
  } catch {
    const pid = Number(await readFile(path.join(lock, 'pid'), 'utf8').catch(() => ''));
    const since = await stat(lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if ((pid && !alive(pid)) || (!pid && since > 60_000)) {
      await rm(lock, { recursive: true, force: true });
      return takeLock(lock);
    }
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
