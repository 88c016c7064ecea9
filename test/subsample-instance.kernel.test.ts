// The embedded instance pandas_3, subsampled for real: its data/ is made from
// a generated 300,000-row source and re-verified in real Jupyter kernels.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashTree, type Instance, type SubsampleSpec } from '@junobench/core';
import { createLocalRuntime, type Runtime } from '@junobench/runtime';
import { subsampleInstance } from '@junobench/subsample';
import { verifyInstanceDir } from '@junobench/verify';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let runtime: Runtime;
let tmp: string;
let dir: string;
let cacheDir: string;
let instance: Instance;

beforeAll(async () => {
  runtime = await createLocalRuntime();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-subsample-kernel-'));
  dir = path.join(tmp, 'instances', 'pandas_3');
  cacheDir = path.join(tmp, 'cache');
  await cp(path.join(repo, 'raw/instances/pandas_3'), dir, { recursive: true });
  instance = JSON.parse(await readFile(path.join(dir, 'instance.json'), 'utf8')) as Instance;
});

afterAll(async () => {
  await runtime?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const verify = (d: string) => verifyInstanceDir(d, { runtime });

describe('subsampleInstance on pandas_3 with real kernels', () => {
  it('refuses a sample that loses the rows without units, keeping data/ as it was', async () => {
    const before = await hashTree(dir);
    const saved = instance.data!.subsample!;
    const careless: SubsampleSpec = {
      ...saved,
      steps: [
        {
          path: 'sales.csv',
          method: 'table',
          parameters: { rows: 2500, stratifyBy: 'region', preserveMissing: false },
        },
      ],
    };
    const r = await subsampleInstance({ instanceDir: dir, spec: careless, cacheDir, verify });
    expect(r.status).toBe('refused');
    expect(r.verification?.reproduced.outcome).toBe('no-crash');
    expect(r.reason).toMatch(/expected IntCastingNaNError/);
    expect(await hashTree(dir)).toBe(before);
  });

  it('redoes the saved spec from the generated source: verified, and byte for byte the shipped data/', async () => {
    const shipped = await hashTree(path.join(dir, 'data'));
    expect(shipped).toBe(instance.data!.subsample!.result!.sha256);
    const r = await subsampleInstance({ instanceDir: dir, cacheDir, verify });
    expect(r.status).toBe('applied');
    expect(r.verification?.reproduced.observed).toMatchObject({ ename: 'IntCastingNaNError', cell: 6 });
    expect(r.verification?.fixed.outcome).toBe('fixed-ok');
    expect(await hashTree(path.join(dir, 'data'))).toBe(shipped);
    expect(r.data.steps[0]!.table!.keptByFilter).toBeGreaterThan(0);
  });
});
