// `junobench subsample …` end to end: the real binary, no kernel (dry run and --check).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runJunobench } from './run-cli.js';
import { hashTree } from '@junobench/core';

const root = repoRoot;

function junobench(cwd: string, ...args: string[]) {
  return runJunobench(args, { cwd });
}

describe('junobench subsample (e2e)', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'subsample-e2e-'));
    await cp(path.join(root, 'raw/instances/pandas_3'), path.join(tmp, 'instances/pandas_3'), { recursive: true });
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('--check regenerates pandas_3 data/ byte for byte from the generated source', async () => {
    const r = await junobench(
      tmp,
      'subsample',
      'pandas_3',
      '--instances',
      'instances',
      '--check',
      '--cache-dir',
      'cache',
    );
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rows 300000 → 2500/);
    expect(r.stdout).toMatch(/data\/ reproduces byte for byte/);
  });

  it('--dry-run with flags reports sizes and changes nothing', async () => {
    const before = await hashTree(path.join(tmp, 'instances'));
    const r = await junobench(
      tmp,
      'subsample',
      'pandas_3',
      '--instances',
      'instances',
      '--cache-dir',
      'cache',
      '--source',
      'instances/pandas_3/data',
      '--method',
      'table',
      '--path',
      'sales.csv',
      '--fraction',
      '0.1',
      '--stratify',
      'region',
      '--keep',
      'units:missing',
      '--seed',
      '1',
      '--dry-run',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rows 2500 → 250 /);
    expect(r.stdout).toMatch(/dry run/);
    expect(await hashTree(path.join(tmp, 'instances'))).toBe(before);
  });

  it('--method without --source reduces the full data the saved spec names (its generator), not the already reduced data/', async () => {
    const r = await junobench(
      tmp,
      'subsample',
      'pandas_3',
      '--instances',
      'instances',
      '--cache-dir',
      'cache',
      '--method',
      'table',
      '--path',
      'sales.csv',
      '--rows',
      '3000',
      '--stratify',
      'region',
      '--keep',
      'units:missing',
      '--seed',
      '3',
      '--dry-run',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/rows 300000 → 3000 /);
  });

  it('exits 2 on bad usage', async () => {
    const r = await junobench(
      tmp,
      'subsample',
      'pandas_3',
      '--instances',
      'instances',
      '--method',
      'table',
      '--dry-run',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs --path/);
  });
});
