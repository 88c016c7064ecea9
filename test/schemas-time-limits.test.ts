import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JunoError, checkSchema, validateOrThrow, type QueueJob } from '@junobench/core';

const schemasDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../schemas');

// A time limit travels from instance.json (or a task) into queue jobs; every format that carries one caps it
// at one day, so a limit refused in one file is not accepted in the next.
const ONE_DAY = 86400;
const LIMIT_NAMES = new Set(['cellTimeoutSeconds', 'timeoutSeconds']);
// run-plan is the runner's stdin protocol, not a file: its limits come from the formats above.
const UNCAPPED = new Set(['run-plan.schema.json']);

function* limits(node: unknown, at: string): Generator<[string, Record<string, unknown>]> {
  if (node === null || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (LIMIT_NAMES.has(k) && v && typeof v === 'object' && (v as Record<string, unknown>).type === 'number')
      yield [`${at}/${k}`, v as Record<string, unknown>];
    yield* limits(v, `${at}/${k}`);
  }
}

describe('time limits in schemas/', () => {
  it(`every cellTimeoutSeconds/timeoutSeconds of a file format is capped at ${ONE_DAY} s`, async () => {
    const found: string[] = [];
    const uncapped: string[] = [];
    for (const file of (await readdir(schemasDir)).filter((f) => f.endsWith('.schema.json')).sort()) {
      if (UNCAPPED.has(file)) continue;
      for (const [at, s] of limits(JSON.parse(await readFile(path.join(schemasDir, file), 'utf8')), file)) {
        found.push(at);
        if (s.maximum !== ONE_DAY) uncapped.push(at);
      }
    }
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^queue-job/),
        expect.stringMatching(/^instance/),
        expect.stringMatching(/^task/),
      ]),
    );
    expect(uncapped).toEqual([]);
  });
});

const job = (run: Partial<Extract<QueueJob, { type: 'run' }>['run']>): QueueJob => ({
  protocol: 1,
  type: 'run',
  run: {
    id: 'pandas_3/reproduced',
    notebook: 'reproduced.ipynb',
    cells: [0, 1],
    cellTimeoutSeconds: 120,
    timeoutSeconds: 600,
    ...run,
  },
  files: { treeHash: 'a'.repeat(64), shared: { root: '/srv/instances', path: 'pandas_3' } },
});

describe('queue-job time limits (checked by the coordinator before a job is sent and by the worker when it takes one)', () => {
  it.each([
    ['the defaults', {}, undefined],
    ['one day exactly', { cellTimeoutSeconds: ONE_DAY, timeoutSeconds: ONE_DAY }, undefined],
    ['a notebook limit above one day', { timeoutSeconds: ONE_DAY + 1 }, `run.timeoutSeconds must be <= ${ONE_DAY}`],
    ['a cell limit above one day', { cellTimeoutSeconds: 1e9 }, `run.cellTimeoutSeconds must be <= ${ONE_DAY}`],
    ['a zero limit', { timeoutSeconds: 0 }, 'run.timeoutSeconds must be > 0'],
  ])('%s', (_what, run, refusal) => {
    const value = job(run);
    if (refusal === undefined) {
      expect(checkSchema('queue-job', value)).toEqual([]);
      return;
    }
    let error: unknown;
    try {
      validateOrThrow('queue-job', value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect((error as JunoError).message).toContain(refusal);
  });
});
