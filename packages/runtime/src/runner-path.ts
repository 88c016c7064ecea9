import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The Python runner shipped with this package; the benchmark image copies the same file. */
export const RUNNER_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../python/junobench_runner.py');
