import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { compareCodePoints, sha256 } from '@junobench/core';

/** The folder of the Python runner shipped with this package: the entry point and its `jbrunner` package. */
export const RUNNER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../python');

/** The runner's entry point; the benchmark image copies it and its package (see readRunnerFiles). */
export const RUNNER_PATH = path.join(RUNNER_DIR, 'junobench_runner.py');

/**
 * The local runtime's supervisor of the runner (a child subreaper that kills
 * whatever the runner's processes leave behind). Not one of the runner's
 * files: images do not copy it and it does not change their tags.
 */
export const REAPER_PATH = path.join(RUNNER_DIR, 'junobench_reaper.py');

/** One file of the runner: its path relative to the runner folder (forward slashes) and its bytes. */
export interface RunnerFile {
  name: string;
  content: Buffer;
}

/**
 * Every file the runner is made of (the entry point and the `jbrunner`
 * package's modules; not its tests), sorted by name: what an image copies
 * and what identifies the runner in cache keys and image tags.
 */
export async function readRunnerFiles(dir: string = RUNNER_DIR): Promise<RunnerFile[]> {
  const names = [
    'junobench_runner.py',
    ...(await readdir(path.join(dir, 'jbrunner'))).filter((f) => f.endsWith('.py')).map((f) => `jbrunner/${f}`),
  ];
  names.sort(compareCodePoints);
  return Promise.all(names.map(async (name) => ({ name, content: await readFile(path.join(dir, name)) })));
}

/** sha256 over the runner's files, names included: changes when any module changes. */
export async function hashRunnerFiles(dir: string = RUNNER_DIR): Promise<string> {
  const files = await readRunnerFiles(dir);
  return sha256(files.map((f) => `${f.name}\0${sha256(f.content)}`).join('\n'));
}
