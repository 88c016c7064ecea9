import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  JunoError,
  checkSchema,
  formatJson,
  type Instance,
  type SubsampleCheckReport,
  type SubsampleReport,
  type SubsampleSpec,
} from '@junobench/core';
import { useTempDirs } from '../test-helpers/temp-dirs.js';
import { regenerateInstanceData } from './regenerate-instance-data.js';
import { subsampleData } from './subsample-data.js';
import { planSubsampleCheckReport, writeSubsampleCheckReport, writeSubsampleReport } from './write-subsample-report.js';

vi.setConfig({ testTimeout: 60_000 });
const tempDir = useTempDirs();

const SPEC: SubsampleSpec = {
  seed: 3,
  source: { kind: 'local' },
  steps: [
    {
      path: 'sales.csv',
      method: 'table',
      parameters: { rows: 12, stratifyBy: 'region', keep: [{ column: 'units', isMissing: true }] },
    },
  ],
};

/** An instance whose instance.json saves SPEC (with `result` when given) and its full data beside it. */
async function instanceWithSpec(
  result?: SubsampleSpec['result'],
): Promise<{ dir: string; full: string; cache: string }> {
  const root = await tempDir();
  const dir = path.join(root, 'pandas_3');
  const full = path.join(root, 'full');
  await mkdir(path.join(dir, 'data'), { recursive: true });
  await mkdir(full);
  const rows = Array.from(
    { length: 200 },
    (_, i) => `${i},${['north', 'south', 'islands'][i % 3]},${i % 17 === 0 ? '' : i}`,
  );
  await writeFile(path.join(full, 'sales.csv'), `id,region,units\n${rows.join('\n')}\n`);
  await writeFile(path.join(full, 'README.txt'), 'kept as it is\n');
  const instance: Instance = {
    id: 'pandas_3',
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'KeyError', evalue: "'units'", match: 'exact', cell: 1 },
    execution: { order: 'file' },
    requires: ['pandas'],
    labels: {
      library: 'pandas',
      crashType: 'key error',
      rootCause: 'data confusion',
      pipelineStage: 'data preparation',
    },
    data: { subsample: { ...SPEC, ...(result ? { result } : {}) } },
  };
  await writeFile(path.join(dir, 'instance.json'), formatJson(instance));
  return { dir, full, cache: path.join(root, 'cache') };
}

async function realCheckReport(record: 'nothing' | 'the result' | 'another result'): Promise<SubsampleCheckReport> {
  let { dir, full, cache } = await instanceWithSpec();
  if (record !== 'nothing') {
    const first = await regenerateInstanceData(dir, { sourceDir: full, cacheDir: cache });
    const result = record === 'the result' ? first.report.result : { ...first.report.result, sha256: '0'.repeat(64) };
    ({ dir, full, cache } = await instanceWithSpec(result));
  }
  return planSubsampleCheckReport('pandas_3', await regenerateInstanceData(dir, { sourceDir: full, cacheDir: cache }));
}

async function realDryRunReport(): Promise<SubsampleReport> {
  const { full } = await instanceWithSpec();
  const started = Date.now();
  const data = await subsampleData({ sourceDir: full, outDir: path.join(await tempDir(), 'data'), spec: SPEC });
  // What subsampleInstance returns for --dry-run: the data report, no verification. Applied and refused
  // reports (with a verification) are checked where subsampleInstance is reachable: cli's subsample.test.ts.
  return { instance: 'pandas_3', status: 'dry-run', data, durationMs: Date.now() - started, spec: SPEC };
}

describe('subsample --check --json (subsample-check-report)', () => {
  it.each([
    ['nothing', undefined],
    ['the result', true],
    ['another result', false],
  ] as const)(
    'instance.json recording %s: the report of the real check matches its schema (matches: %s)',
    async (record, matches) => {
      const report = await realCheckReport(record);
      expect(report.matches).toBe(matches);
      expect('expected' in report).toBe(record !== 'nothing');
      expect(report.data.steps[0]!.table).toMatchObject({ rowsBefore: 200 });
      expect(checkSchema('subsample-check-report', report)).toEqual([]);
      const file = path.join(await tempDir(), 'check.json');
      await writeSubsampleCheckReport(file, report);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(report);
    },
  );
});

describe('subsample --json (subsample-report)', () => {
  it('a dry-run report around the real data report matches its schema', async () => {
    const report = await realDryRunReport();
    expect(checkSchema('subsample-report', report)).toEqual([]);
    const file = path.join(await tempDir(), 'report.json');
    await writeSubsampleReport(file, report);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(report);
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reports are broken on purpose, field by field
type Broken = any;

describe('a report that drifted from its schema is an internal error and is not written', () => {
  it.each([
    ['check', 'matches without expected', (r: Broken): unknown => delete r.expected, 'expected'],
    ['check', 'a short tree hash', (r: Broken): unknown => (r.expected.sha256 = 'abc'), 'expected.sha256'],
    ['check', 'an unknown property', (r: Broken): unknown => (r.outDir = '/tmp/x'), 'unknown property "outDir"'],
    [
      'check',
      'a step of an unknown method',
      (r: Broken): unknown => (r.data.steps[0].method = 'tabel'),
      'data.steps[0].method',
    ],
    [
      'check',
      'a missing share above 1',
      (r: Broken): unknown => (r.data.steps[0].table.missing[0].after = 5),
      'data.steps[0].table.missing[0].after',
    ],
    ['report', 'an unknown status', (r: Broken): unknown => (r.status = 'done'), 'status'],
    ['report', 'no spec', (r: Broken): unknown => delete r.spec, 'missing required property "spec"'],
    ['report', 'a fractional byte count', (r: Broken): unknown => (r.data.after.bytes = 1.5), 'data.after.bytes'],
    [
      'report',
      'a step detail with an extra field',
      (r: Broken): unknown => (r.data.steps[0].table.rows = 3),
      'data.steps[0].table has unknown property "rows"',
    ],
  ] as const)('%s: %s', async (kind, _what, breakIt, named) => {
    const report: Broken = kind === 'check' ? await realCheckReport('the result') : await realDryRunReport();
    breakIt(report);
    const file = path.join(await tempDir(), 'report.json');
    const write = kind === 'check' ? writeSubsampleCheckReport(file, report) : writeSubsampleReport(file, report);
    const error: unknown = await write.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code: 'E_INTERNAL', exitCode: 70, location: { file } });
    expect((error as JunoError).message).toContain(named);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });
});
