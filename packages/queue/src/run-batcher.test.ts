import { describe, expect, it, vi } from 'vitest';
import type { RunResult } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from '@junobench/runtime';
import { createRunBatcher } from './run-batcher.js';

/** A runtime that records its batches and how many runs execute at once; each run takes `ms`. */
function createTimedRuntime(ms: number, fail?: (run: NotebookRun) => boolean) {
  const calls: { ids: string[]; jobs: number }[] = [];
  let executing = 0;
  let peak = 0;
  const runtime: Runtime = {
    kind: 'local',
    describe: async () => ({ kind: 'local', packages: {} }),
    fingerprint: async () => 'local:test',
    close: async () => undefined,
    async run(runs: readonly NotebookRun[], opts: RunOptions = {}) {
      calls.push({ ids: runs.map((r) => r.id), jobs: opts.jobs ?? 1 });
      if (runs.some((r) => fail?.(r))) throw new Error('engine gone');
      const results: RunResult[] = new Array(runs.length);
      let next = 0;
      const slot = async () => {
        while (next < runs.length) {
          const i = next++;
          executing++;
          peak = Math.max(peak, executing);
          await new Promise((r) => setTimeout(r, ms));
          executing--;
          const result: RunResult = opts.signal?.aborted
            ? { id: runs[i]!.id, status: 'failed', reason: 'cancelled', cells: [], durationMs: 0 }
            : { id: runs[i]!.id, status: 'completed', cells: [], durationMs: ms };
          results[i] = result;
          opts.onResult?.(result, runs[i]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(opts.jobs ?? 1, runs.length) }, slot));
      return results;
    },
  };
  return { runtime, calls, peak: () => peak };
}

const run = (id: string): NotebookRun => ({
  id,
  instanceDir: '/i',
  notebook: 'fixed.ipynb',
  cells: [0],
  cellTimeoutSeconds: 1,
  timeoutSeconds: 1,
});

describe('createRunBatcher', () => {
  it('puts runs submitted together into one runtime call and answers each', async () => {
    const t = createTimedRuntime(5);
    const b = createRunBatcher(t.runtime, { jobs: 2 });
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((id) => b.submit(run(id))));
    expect(results.map((r) => `${r.id}:${r.status}`)).toEqual([
      'a:completed',
      'b:completed',
      'c:completed',
      'd:completed',
    ]);
    expect(t.calls).toEqual([{ ids: ['a', 'b', 'c', 'd'], jobs: 2 }]);
    expect(b.size).toBe(0);
  });

  it('starts runs that arrive later in a new batch, never using more than `jobs` slots in all', async () => {
    const t = createTimedRuntime(20);
    const b = createRunBatcher(t.runtime, { jobs: 2, gatherMs: 0 });
    const first = [b.submit(run('a')), b.submit(run('b')), b.submit(run('c'))];
    // Later = after the first batch started (a fixed sleep let a loaded machine start it after d and e arrived).
    await vi.waitFor(() => expect(t.calls).toHaveLength(1), { timeout: 10_000, interval: 1 });
    const later = [b.submit(run('d')), b.submit(run('e'))];
    await Promise.all([...first, ...later]);
    expect(t.peak()).toBeLessThanOrEqual(2);
    expect(t.calls[0]).toEqual({ ids: ['a', 'b', 'c'], jobs: 2 });
    expect(t.calls.flatMap((c) => c.ids).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(b.batches).toBe(t.calls.length);
  });

  it('lets a lone run wait a moment for others, then starts it anyway', async () => {
    const t = createTimedRuntime(1);
    const b = createRunBatcher(t.runtime, { jobs: 2, gatherMs: 30 });
    const first = b.submit(run('a'));
    await new Promise((r) => setTimeout(r, 5));
    const second = b.submit(run('b'));
    await Promise.all([first, second]);
    expect(t.calls).toEqual([{ ids: ['a', 'b'], jobs: 2 }]);
    const t0 = Date.now();
    await b.submit(run('c'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    expect(t.calls[1]).toEqual({ ids: ['c'], jobs: 1 });
  });

  it('rejects the runs of a batch whose runtime call fails, and goes on with the next', async () => {
    const t = createTimedRuntime(1, (r) => r.id === 'bad');
    const b = createRunBatcher(t.runtime, { jobs: 1 });
    const bad = b.submit(run('bad'));
    await expect(bad).rejects.toThrow('engine gone');
    await expect(b.submit(run('good'))).resolves.toMatchObject({ id: 'good', status: 'completed' });
  });

  // Every way a runtime call can go wrong answers the batch's runs: a worker's job never stays active for nothing.
  it.each([
    [
      'throws instead of rejecting',
      (): Runtime['run'] => () => {
        throw new Error('no scratch folder');
      },
      /no scratch folder/,
    ],
    [
      'reports results for other objects than the runs it was given',
      (): Runtime['run'] =>
        async (runs, opts = {}) => {
          const results = runs.map((r): RunResult => ({ id: r.id, status: 'completed', cells: [], durationMs: 1 }));
          for (const [i, r] of runs.entries()) opts.onResult?.(results[i]!, { ...r });
          return results;
        },
      'completed',
    ],
    [
      'returns without a result for a run',
      (): Runtime['run'] => async () => [],
      /^the runtime returned no result for run [ab]$/,
    ],
  ] as const)(
    'a runtime call that %s: each run is answered, and the next batch runs',
    async (_name, make, expected) => {
      const t = createTimedRuntime(1);
      let first = true;
      const runtime: Runtime = {
        ...t.runtime,
        run: (runs, opts) => {
          if (!first) return t.runtime.run(runs, opts);
          first = false;
          return make()(runs, opts);
        },
      };
      const b = createRunBatcher(runtime, { jobs: 1, gatherMs: 0 });
      const answers = await Promise.allSettled([b.submit(run('a')), b.submit(run('b'))]);
      for (const a of answers) {
        if (typeof expected === 'string') expect(a).toMatchObject({ status: 'fulfilled', value: { status: expected } });
        else expect(a.status === 'rejected' ? String((a.reason as Error).message) : 'fulfilled').toMatch(expected);
      }
      await expect(b.submit(run('c'))).resolves.toMatchObject({ id: 'c', status: 'completed' });
      expect(b.size).toBe(0);
    },
  );

  it('passes the stop signal to the runtime', async () => {
    const t = createTimedRuntime(10);
    const stop = new AbortController();
    const b = createRunBatcher(t.runtime, { jobs: 1, signal: stop.signal });
    const p = b.submit(run('a'));
    stop.abort();
    await expect(p).resolves.toMatchObject({ status: 'failed', reason: 'cancelled' });
  });
});

describe('createRunBatcher over a runtime that streams', () => {
  it('gives every run, as it arrives, to one stream opened with the worker’s jobs and signal', async () => {
    const t = createTimedRuntime(5);
    const opened: { jobs?: number; signal?: AbortSignal }[] = [];
    const submitted: string[] = [];
    const runtime: Runtime = {
      ...t.runtime,
      stream(opts = {}) {
        opened.push(opts);
        return {
          submit: async (r) => {
            submitted.push(r.id);
            return { id: r.id, status: 'completed', cells: [], durationMs: 1 };
          },
          end: async () => undefined,
          runners: 1,
        };
      },
    };
    const controller = new AbortController();
    const b = createRunBatcher(runtime, { jobs: 3, signal: controller.signal });
    expect(b.batches).toBe(0);
    const first = await b.submit(run('a'));
    const rest = await Promise.all([b.submit(run('b')), b.submit(run('c'))]);
    expect([first, ...rest].map((r) => `${r.id}:${r.status}`)).toEqual(['a:completed', 'b:completed', 'c:completed']);
    expect(submitted).toEqual(['a', 'b', 'c']);
    expect(opened).toEqual([{ jobs: 3, signal: controller.signal }]);
    // No fixed-list call: the stream took them all.
    expect(t.calls).toEqual([]);
    expect(b.batches).toBe(1);
    expect(b.size).toBe(0);
  });
});
