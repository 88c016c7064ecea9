import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInstance } from '@junobench/core';

// The runtimes are handed an instance's own time limits, and instance folders
// are untrusted: a limit of years (1e9 s) hung the local runtime on a
// `while True: pass` cell. The instance schema caps them at a day.

const MAX_SECONDS = 86_400;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-time-limits-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function instanceWith(id: string, execution: Record<string, unknown>): Promise<string> {
  const dir = path.join(tmp, id);
  await mkdir(dir, { recursive: true });
  const instance = {
    id,
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'ValueError', evalue: 'x', match: 'exact', cell: 0 },
    execution: { order: 'file', ...execution },
    requires: [],
    labels: {
      library: 'numpy',
      crashType: 'value error',
      rootCause: 'implementation error',
      pipelineStage: 'data preparation',
      diagnosis: 'x',
    },
  };
  await writeFile(path.join(dir, 'instance.json'), JSON.stringify(instance));
  return dir;
}

describe('instance time limits (execution.cellTimeoutSeconds, execution.timeoutSeconds)', () => {
  it.each([
    ['cellTimeoutSeconds', 1e9],
    ['timeoutSeconds', 1e9],
    ['timeoutSeconds', MAX_SECONDS + 1],
    ['cellTimeoutSeconds', 1e308],
  ])('execution.%s = %d is bad input at load (exit 2, naming instance.json and the field)', async (field, value) => {
    const dir = await instanceWith(`over_${field}_${String(value).replace(/\W/g, '')}`, { [field]: value });
    const err = await readInstance(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({
      code: 'E_SCHEMA',
      exitCode: 2,
      message: expect.stringContaining(`must be <= ${MAX_SECONDS}`),
      location: { file: path.join(dir, 'instance.json'), field: `execution.${field}` },
    });
  });

  it('a day, and anything shorter, is accepted', async () => {
    const dir = await instanceWith('a_day', { cellTimeoutSeconds: MAX_SECONDS, timeoutSeconds: MAX_SECONDS });
    await expect(readInstance(dir)).resolves.toMatchObject({
      execution: { cellTimeoutSeconds: MAX_SECONDS, timeoutSeconds: MAX_SECONDS },
    });
    const short = await instanceWith('short', { cellTimeoutSeconds: 0.5, timeoutSeconds: 600 });
    await expect(readInstance(short)).resolves.toMatchObject({ execution: { timeoutSeconds: 600 } });
  });
});
