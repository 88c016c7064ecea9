import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { BuildInProgress } from '@junobench/core';
import { BUILD_MUTEX_FILE, decideBuildMutex, isProcessAlive, readProcessStart } from './build-mutex.js';

const holder: BuildInProgress = {
  pid: 4242,
  host: 'here',
  startedAt: '2026-01-01T00:00:00.000Z',
  command: 'junobench build',
};

describe('decideBuildMutex', () => {
  it.each<[string, Parameters<typeof decideBuildMutex>[0], boolean, string]>([
    ['no lock', undefined, true, 'take'],
    ['held by a running build here', holder, true, 'refuse'],
    ['left by a process that is gone', holder, false, 'take-over'],
    ['held on another machine (cannot be checked)', { ...holder, host: 'elsewhere' }, false, 'refuse'],
    ['unreadable', { corrupt: 'not JSON' }, true, 'take-over'],
  ])('%s → %s', (_n, existing, alive, action) => {
    expect(decideBuildMutex(existing, { host: 'here' }, () => alive).action).toBe(action);
  });
});

describe('isProcessAlive', () => {
  it('knows this process, and a reused pid by its start time', () => {
    const start = readProcessStart(process.pid);
    expect(isProcessAlive(process.pid, start)).toBe(true);
    if (start !== undefined) expect(isProcessAlive(process.pid, `${start}0`)).toBe(false);
  });
});

describe('acquireBuildMutex', () => {
  it('an interrupted build (process.exit from a signal) removes its lock on the way out', async () => {
    // The binary ends a build on Ctrl-C/SIGTERM with process.exit, where the async release never ran: the lock stayed
    // until the next build took it over.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-mutex-'));
    try {
      const script = `import { acquireBuildMutex } from ${JSON.stringify(new URL('./build-mutex.ts', import.meta.url).href)};
await acquireBuildMutex(${JSON.stringify(dir)}, { command: 'junobench build' });
const { readdirSync } = await import('node:fs');
if (!readdirSync(${JSON.stringify(dir)}).includes(${JSON.stringify(BUILD_MUTEX_FILE)})) process.exit(5);
process.exit(143);`;
      const status = await promisify(execFile)(process.execPath, [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ]).then(
        () => 0,
        (e: { code?: number }) => e.code,
      );
      expect(status).toBe(143);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
