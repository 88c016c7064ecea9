// `junobench stats` end to end: the real binary on a fixture benchmark and a
// fixture benchmark-description sheet (read through the pool importer).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runJunobench } from './run-cli.js';
import { checkSchema, listTree, sha256 } from '@junobench/core';

const root = repoRoot;
const fixtures = path.join(root, 'test/fixtures/labels');

function junobench(cwd: string, ...args: string[]) {
  return runJunobench(args, { cwd });
}

async function hashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of await listTree(dir)) out[rel] = sha256(await readFile(path.join(dir, rel)));
  return out;
}

describe('junobench stats', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'stats-e2e-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('writes tables, JSON and SVG/PNG charts from a curated benchmark, byte-identical on a rerun', async () => {
    const r = await junobench(
      tmp,
      'stats',
      '--input',
      `${fixtures}/benchmark.json`,
      '--out',
      'out1',
      '--json',
      'stats-copy.json',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('13 instances.');
    expect(r.stdout).toContain('| API misuse | 6 | 46.2% |');
    expect(r.stdout).toContain('| None (no library) | 2 | 15.4% |');
    expect(r.stdout).toContain('## Library cause × root cause');
    expect(r.stderr).toContain('wrote 20 files to out1');
    const json = JSON.parse(await readFile(path.join(tmp, 'out1/stats.json'), 'utf8'));
    expect(checkSchema('stats', json)).toEqual([]);
    expect(await readFile(path.join(tmp, 'stats-copy.json'), 'utf8')).toBe(
      await readFile(path.join(tmp, 'out1/stats.json'), 'utf8'),
    );
    const first = await hashes(path.join(tmp, 'out1'));
    expect(Object.keys(first)).toContain('charts/pipeline-stage-by-crash-type.png');
    expect(Object.keys(first)).toContain('charts/library.svg');

    const again = await junobench(tmp, 'stats', '--input', `${fixtures}/benchmark.json`, '--out', 'out2');
    expect(again.code).toBe(0);
    expect(await hashes(path.join(tmp, 'out2'))).toEqual(first);
  });

  it('reads a benchmark-description sheet through the pool importer, with the same numbers', async () => {
    const r = await junobench(
      tmp,
      'stats',
      '--input',
      `${fixtures}/benchmark-desc.csv`,
      '--out',
      'sheet',
      '--no-charts',
    );
    expect(r.stderr).toContain('wrote 2 files');
    expect(r.code).toBe(0);
    const fromSheet = JSON.parse(await readFile(path.join(tmp, 'sheet/stats.json'), 'utf8'));
    const fromBenchmark = JSON.parse(await readFile(path.join(tmp, 'out1/stats.json'), 'utf8'));
    expect(fromSheet).toEqual(fromBenchmark);
  });

  it('exit 2 on a curated benchmark.csv, pointing at its benchmark.json', async () => {
    const csv = path.join(tmp, 'benchmark.csv');
    await writeFile(
      csv,
      'id,library,crash_type,root_cause,pipeline_stage\npandas_1,pandas,key error,API misuse,data preparation\n',
    );
    const r = await junobench(tmp, 'stats', '--input', csv, '--no-charts');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('for a curated benchmark pass its benchmark.json');
  });

  it.each([
    { name: 'no curated benchmark yet', args: [], text: ['no curated benchmark yet', 'junobench build'] },
    {
      name: 'unknown extension',
      args: ['--input', `${fixtures}/agree/annotator-a.jsonl.txt`],
      text: ['cannot read statistics'],
    },
    { name: 'invalid benchmark', args: ['--input', `${fixtures}/agree/adjudicated.jsonl`], text: ['not a valid'] },
  ])('exit 2: $name', async ({ args, text }) => {
    const r = await junobench(tmp, 'stats', ...args);
    expect(r.code).toBe(2);
    for (const t of text) expect(r.stderr).toContain(t);
  });
});
