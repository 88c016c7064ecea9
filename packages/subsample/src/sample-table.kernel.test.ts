// pandas on both sides: the sampled CSV reads back with the same dtypes and
// missing values per column as the source (the kernel stack's Python).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { findPython } from '@junobench/runtime';
import { generateSource } from './generate-source.js';
import { sampleTable } from './sample-table.js';
import { synthesizeTable } from './synthesize-table.js';
import { useTempDirs } from '../test-helpers/temp-dirs.js';

vi.setConfig({ testTimeout: 300_000 });
const tempDir = useTempDirs();

const READ = `
import json, sys
import pandas as pd
out = {}
for f in sys.argv[1:]:
    df = pd.read_csv(f)
    out[f] = {"columns": list(df.columns), "dtypes": {c: str(t) for c, t in df.dtypes.items()}, "na": {c: int(n) for c, n in df.isna().sum().items()}, "rows": len(df)}
print(json.dumps(out))
`;

async function readWithPandas(
  ...files: string[]
): Promise<
  Record<string, { columns: string[]; dtypes: Record<string, string>; na: Record<string, number>; rows: number }>
> {
  const python = await findPython();
  const { stdout } = await promisify(execFile)(python, ['-c', READ, ...files], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as never;
}

describe('tables read back by pandas', () => {
  it('a stratified sample keeps columns and dtypes, and the kept rows keep units missing', async () => {
    const dir = await tempDir();
    const src = await generateSource(path.join(dir, 'cache'), 'retail-sales', { rows: 60_000 }, 7);
    const input = path.join(src.dir, 'sales.csv');
    const out = path.join(dir, 'sample.csv');
    const r = await sampleTable(input, out, {
      rows: 1000,
      stratifyBy: 'region',
      keep: [{ column: 'units', isMissing: true }],
      seed: 7,
    });
    const pd = await readWithPandas(input, out);
    const a = pd[input]!;
    const b = pd[out]!;
    expect(b.columns).toEqual(a.columns);
    expect(b.dtypes).toEqual(a.dtypes);
    expect(b.dtypes.units).toBe('float64');
    expect(b.rows).toBe(1000);
    expect(b.na.units).toBe(a.na.units);
    expect(r.keptByFilter).toBe(a.na.units);
  });

  it('a synthetic table has the same columns and dtypes', async () => {
    const dir = await tempDir();
    const src = await generateSource(path.join(dir, 'cache'), 'retail-sales', { rows: 20_000 }, 8);
    const input = path.join(src.dir, 'sales.csv');
    const out = path.join(dir, 'synthetic.csv');
    await synthesizeTable(input, out, { seed: 8, rows: 5000 });
    const pd = await readWithPandas(input, out);
    expect(pd[out]!.columns).toEqual(pd[input]!.columns);
    expect(pd[out]!.dtypes).toEqual(pd[input]!.dtypes);
  });
});
