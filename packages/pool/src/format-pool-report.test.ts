import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JunoError, checkSchema, type CrashRecord } from '@junobench/core';
import { filterPool } from './filter-pool.js';
import { formatPoolReport, type PoolReportSchema } from './format-pool-report.js';
import { libcausePool } from './libcause-pool.js';
import { resamplePool } from './resample-pool.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pool-report-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rec = (
  id: string,
  source: CrashRecord['source'],
  library: string | undefined,
  ename: string,
  line: string,
): CrashRecord => ({
  id,
  notebook: `${id}.ipynb`,
  source,
  ename,
  evalue: 'boom',
  traceback: [`Cell In[1], line 1\n----> 1 ${line}\n`, `${ename}: boom`],
  columns: {},
  ...(library ? { labels: { library } } : {}),
});

const POOL = [
  rec('a', 'kaggle', 'pandas', 'KeyError', "df['x']"),
  rec('b', 'kaggle', 'numpy', 'ValueError', 'np.asarray(a) + b'),
  rec('c', 'github', 'numpy', 'ValueError', 'np.reshape(a, (3, 2))'),
  rec('d', 'kaggle', undefined, 'AttributeError', 'df.ix[0]'),
];

async function poolFile(): Promise<string> {
  const file = path.join(dir, 'pool.jsonl');
  await writeFile(file, POOL.map((r) => JSON.stringify(r)).join('\n'));
  return file;
}

// Each --report the pool commands write, made by the real function from a real pool file.
const WRITERS: [PoolReportSchema, (input: string, report: string) => Promise<unknown>][] = [
  [
    'pool-funnel-report',
    (input, report) =>
      filterPool({
        input,
        criteria: {
          steps: [
            { name: 'Kaggle only', keep: { field: 'source', equals: 'kaggle' } },
            { name: 'no KeyError', drop: { field: 'ename', equals: 'KeyError' } },
          ],
        },
        output: path.join(dir, 'out.jsonl'),
        report,
      }),
  ],
  ['pool-libcause-report', (input, report) => libcausePool({ input, output: path.join(dir, 'out.jsonl'), report })],
  [
    'pool-libcause-report',
    (input, report) => libcausePool({ input, output: path.join(dir, 'out.jsonl'), eval: true, report }),
  ],
  [
    'pool-resample-report',
    (input, report) =>
      resamplePool({
        input,
        output: path.join(dir, 'out.jsonl'),
        perLibrary: 2,
        seed: 's',
        libraries: ['numpy', 'tensorflow'],
        report,
      }),
  ],
];

async function writtenReport(i: number): Promise<{ report: Record<string, unknown>; returned: unknown }> {
  const [, write] = WRITERS[i]!;
  const file = path.join(dir, 'report.json');
  const returned = await write(await poolFile(), file);
  return { report: JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>, returned };
}

describe('pool --report files', () => {
  it.each(WRITERS.map(([schema], i) => [schema, i] as const))(
    '%s written by the real function matches its schema',
    async (schema, i) => {
      const { report, returned } = await writtenReport(i);
      expect(checkSchema(schema, report)).toEqual([]);
      // The file is the report the command prints from, not some other object.
      expect(returned).toMatchObject(report);
    },
  );

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- reports are broken on purpose, field by field
  type Report = any;
  // Broken copies of real reports: each must fail its schema, naming the field.
  it.each([
    [0, 'a negative count', (r: Report) => (r.steps[0].removed = -1), 'steps[0].removed must be >= 0'],
    [0, 'an unknown action', (r: Report) => (r.steps[1].action = 'skip'), 'steps[1].action'],
    [0, 'a missing total', (r: Report) => delete r.kept, 'missing required property "kept"'],
    [0, 'an extra property', (r: Report) => (r.output = 'out.jsonl'), 'unknown property "output"'],
    [1, 'a fractional count', (r: Report) => (r.predicted.numpy = 1.5), 'predicted.numpy'],
    [2, 'an accuracy above 1', (r: Report) => (r.evaluation.accuracy = 3), 'evaluation.accuracy'],
    [
      2,
      'a confusion cell of the wrong type',
      (r: Report) => (r.baseline.confusion.numpy.numpy = '1'),
      'baseline.confusion.numpy.numpy',
    ],
    [2, 'an evaluation without its baseline', (r: Report) => delete r.baseline, 'baseline'],
    [
      2,
      'a library score without recall',
      (r: Report) => delete r.evaluation.perLibrary.numpy.recall,
      'evaluation.perLibrary.numpy is missing required property "recall"',
    ],
    [3, 'a numeric seed', (r: Report) => (r.seed = 7), 'seed'],
    [
      3,
      'a shortfall without its request',
      (r: Report) => delete r.shortfalls[0].requested,
      'shortfalls[0] is missing required property "requested"',
    ],
    [3, 'a per-library of 0', (r: Report) => (r.perLibrary = 0), 'perLibrary'],
  ])('%#: %s fails (%s)', async (i, _what, breakIt, named) => {
    const [schema] = WRITERS[i]!;
    const { report } = await writtenReport(i);
    expect(checkSchema(schema, report)).toEqual([]);
    breakIt(report);
    expect(checkSchema(schema, report).length).toBeGreaterThan(0);
    let error: unknown;
    try {
      formatPoolReport(schema, report, 'report.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code: 'E_INTERNAL', exitCode: 70, location: { file: 'report.json' } });
    expect((error as JunoError).message).toContain(`not a valid ${schema}: `);
    expect((error as JunoError).message).toContain(named);
  });

  it('a report is written with sorted keys and a final newline', () => {
    expect(formatPoolReport('pool-funnel-report', { steps: [], kept: 0, input: 0 })).toBe(
      '{\n  "input": 0,\n  "kept": 0,\n  "steps": []\n}\n',
    );
  });
});
