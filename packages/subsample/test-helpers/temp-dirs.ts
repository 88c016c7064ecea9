// Test-only (a module of this package's test-helpers/ folder, outside src/): imported by tests and benchmarks, never
// from index.ts or library code.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A fresh temporary folder per call, removed after the test. */
export function useTempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  return async () => {
    const d = await mkdtemp(path.join(tmpdir(), 'junobench-subsample-test-'));
    made.push(d);
    return d;
  };
}
