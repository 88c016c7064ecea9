// A run the runtime could not carry out is reported but never cached: the
// runtime here is an injected client that fails the first time (as a local
// runtime that gave up, or a queue worker gone silent, does), then runs.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from '@junobench/runtime';
import { verifyInstances } from './verify-instances.js';
import { writeTestInstance } from '../test-helpers/make-test-instance.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-verify-fail-'));
  await writeTestInstance(dir, {
    id: 'ok',
    reproduced: ['x = 1', "raise ValueError('bad value')"],
    fixed: ['x = 1', 'y = 2'],
    crash: { ename: 'ValueError', evalue: 'bad value', match: 'exact', cell: 1 },
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the checks harness prints in a kernel when the cells hid nothing and there is no checks.py. */
function harnessReport(r: NotebookRun): RunResult['probe'] {
  const nonce = /finish\("([0-9a-f]+)"/.exec(r.probe?.finish ?? '')?.[1];
  if (!nonce) return undefined;
  const line = (o: object) => `__junobench_checks__:${nonce} ${JSON.stringify(o)}\n`;
  return {
    setup: { status: 'ok', stdout: '', durationMs: 1 },
    finish: {
      status: 'ok',
      stdout: line({ evidence: [], positions: r.cells.length }) + line({ done: true }),
      durationMs: 1,
    },
  };
}

/** Answers as a kernel would have; `fail` runs get the runtime's own failure instead. */
function scriptedRuntime(fail: (run: NotebookRun) => boolean) {
  const ran: string[] = [];
  const runtime: Runtime = {
    kind: 'local',
    describe: async () => ({ kind: 'local', python: '/scripted/python3', packages: {} }),
    fingerprint: async () => 'local:scripted',
    close: async () => undefined,
    async run(runs: readonly NotebookRun[], o: RunOptions = {}) {
      return runs.map((r) => {
        ran.push(r.id);
        const result: RunResult = fail(r)
          ? {
              id: r.id,
              status: 'failed',
              reason: 'the local runtime could not go on: ENOSPC',
              cells: [],
              durationMs: 0,
            }
          : r.notebook === 'reproduced.ipynb'
            ? {
                id: r.id,
                status: 'error',
                cells: [
                  { index: 0, status: 'ok', durationMs: 1 },
                  { index: 1, status: 'error', ename: 'ValueError', evalue: 'bad value', traceback: [], durationMs: 1 },
                ],
                durationMs: 2,
              }
            : {
                id: r.id,
                status: 'completed',
                cells: r.cells.map((index) => ({ index, status: 'ok' as const, durationMs: 1 })),
                durationMs: 2,
                probe: harnessReport(r),
              };
        o.onResult?.(result, r);
        return result;
      });
    },
  };
  return { runtime, ran };
}

describe('verify cache and runtime failures', () => {
  it('reports a runtime failure as kernel-died, caches nothing, and runs the instance again next time', async () => {
    const cacheDir = path.join(dir, '.cache');
    const first = scriptedRuntime((r) => r.notebook === 'fixed.ipynb');
    const a = await verifyInstances({ instancesDir: dir, runtime: first.runtime, cacheDir });
    expect(a.instances[0]).toMatchObject({
      status: 'not-verified',
      fixed: {
        outcome: 'kernel-died',
        reason: 'no kernel ran the notebook: the local runtime could not go on: ENOSPC',
      },
    });
    const cached = async () =>
      (await readdir(cacheDir, { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) => e.isFile());
    expect(await cached()).toEqual([]);

    const second = scriptedRuntime(() => false);
    const b = await verifyInstances({ instancesDir: dir, runtime: second.runtime, cacheDir });
    expect(second.ran).toEqual(['ok/reproduced/0', 'ok/fixed/0']);
    expect(b.instances[0]).toMatchObject({ status: 'verified', cached: false });
    expect(await cached()).toHaveLength(1);

    // A verdict is cached as before: the third run executes nothing.
    const third = scriptedRuntime(() => true);
    const c = await verifyInstances({ instancesDir: dir, runtime: third.runtime, cacheDir });
    expect(third.ran).toEqual([]);
    expect(c.instances[0]).toMatchObject({ status: 'verified', cached: true });
  });
});
