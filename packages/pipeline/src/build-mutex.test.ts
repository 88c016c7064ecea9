import { describe, expect, it } from 'vitest';
import type { BuildInProgress } from '@junobench/core';
import { decideBuildMutex, isProcessAlive, readProcessStart } from './build-mutex.js';

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
