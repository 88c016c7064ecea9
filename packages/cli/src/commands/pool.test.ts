import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestContext } from '../../test-helpers/test-context.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'junobench-cli-pool-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEADER = 'nb_name,eid,ename,evalue,traceback,label_root_cause,NotebookUrl';
const row = (name: string, ename: string, evalue: string, lines: string[]) =>
  [
    name,
    `id-${name}`,
    ename,
    evalue,
    JSON.stringify(lines.map((l) => l.replace(/"/g, "'"))).replace(/"/g, "'"),
    'API misuse',
    'https://www.kaggle.com/code/a/b',
  ]
    .map((c) => `"${c.replace(/"/g, '""')}"`)
    .join(',');

async function sheet(): Promise<string> {
  const file = path.join(dir, 'bench.csv');
  await writeFile(
    file,
    [
      HEADER,
      row('NBspecific_1', 'nameerror', 'name x is not defined', [
        'Cell In[1], line 1\n----> 1 x.shape\n',
        'NameError: name x is not defined',
      ]),
      row('numpy_1', 'valueerror', 'operands could not be broadcast together with shapes (2,) (3,)', [
        'Cell In[2], line 1\n----> 1 c = np.asarray(a) + b\n',
        'ValueError: operands could not be broadcast together',
      ]),
      row('pandas_1', 'valueerror', 'operands could not be broadcast together with shapes (2,) (3,)', [
        'Cell In[3], line 1\n----> 1 c = np.asarray(a) + b\n',
        'ValueError: operands',
      ]),
      'broken_1,id-b,valueerror,x,"[\'a\' x]",API misuse,',
    ].join('\n'),
  );
  return file;
}

describe('junobench pool (in process)', () => {
  it('import prints per-input and total counts and where the outputs went', async () => {
    await sheet();
    const ctx = createTestContext(dir);
    expect(await main(['pool', 'import', 'bench.csv', '-o', 'pool.jsonl', '--rejects', 'bad.jsonl'], ctx)).toBe(0);
    expect(ctx.stdout).toEqual([
      'bench.csv (benchmark, csv): read 4, imported 3, rejected 1',
      'total: read 4, imported 3, rejected 1',
      'wrote pool.jsonl (3 records)',
      'rejects: bad.jsonl (1 rows) — each line names the file, row and reason',
    ]);
    const [rej] = (await readFile(path.join(dir, 'bad.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { row: number; reason: string });
    expect(rej).toMatchObject({ row: 5, reason: expect.stringMatching(/^unparseable traceback/) });
  });

  it('libcause --eval prints the confusion table, per-library scores, the baseline and last the accuracy line', async () => {
    await sheet();
    const ctx = createTestContext(dir);
    expect(await main(['pool', 'import', 'bench.csv', '-o', 'pool.jsonl'], ctx)).toBe(0);
    const eval_ = createTestContext(dir);
    expect(await main(['pool', 'libcause', '-i', 'pool.jsonl', '-o', 'lib.jsonl', '--eval'], eval_)).toBe(0);
    const out = eval_.stdout.join('\n');
    expect(out).toContain('predicted libraries: numpy 2, None 1');
    expect(out).toMatch(/labelled \\ predicted\s+None\s+numpy/);
    expect(out).toMatch(/pandas\s+\.\s+1/);
    expect(out).toMatch(/library\s+labelled\s+predicted\s+hits\s+recall\s+precision/);
    expect(eval_.stdout.at(-1)).toBe('accuracy: 0.667 (2/3)');
  });

  it('filter and resample print their reports', async () => {
    await sheet();
    await main(['pool', 'import', 'bench.csv', '-o', 'pool.jsonl'], createTestContext(dir));
    await writeFile(
      path.join(dir, 'c.json'),
      JSON.stringify({
        steps: [
          { name: 'labelled', keep: { field: 'labels.library', exists: true } },
          { name: 'no numpy', drop: { field: 'labels.library', equals: 'numpy' } },
        ],
      }),
    );
    const f = createTestContext(dir);
    expect(
      await main(
        ['pool', 'filter', '-i', 'pool.jsonl', '--criteria', 'c.json', '-o', 'kept.jsonl', '--report', 'funnel.json'],
        f,
      ),
    ).toBe(0);
    expect(f.stdout.join('\n')).toMatch(/1\. labelled\s+keep\s+3\s+3\s+0\n2\. no numpy\s+drop\s+3\s+2\s+1/);
    expect(f.stdout.slice(-2)).toEqual(['kept 2 of 3 records → kept.jsonl', 'funnel report: funnel.json']);
    const r = createTestContext(dir);
    expect(
      await main(
        [
          'pool',
          'resample',
          '-i',
          'pool.jsonl',
          '--per-library',
          '2',
          '--seed',
          'x',
          '-o',
          's.jsonl',
          '--libraries',
          'pandas,torch',
        ],
        r,
      ),
    ).toBe(0);
    expect(r.stdout.slice(-2)).toEqual([
      'short of 2: pandas (1 available), torch (0 available)',
      'selected 1 of 3 records (seed x) → s.jsonl',
    ]);
  });

  it.each([
    [
      ['pool', 'import', 'nope.csv', '-o', 'p.jsonl'],
      /error \[E_INPUT_NOT_FOUND\]: .*nope\.csv: no such file or folder/,
    ],
    [
      [
        'pool',
        'resample',
        '-i',
        'p.jsonl',
        '--per-library',
        '2',
        '--seed',
        '1',
        '-o',
        'o.jsonl',
        '--libraries',
        'pandsa',
      ],
      /unknown library "pandsa" — did you mean "pandas"\?/,
    ],
    [['pool', 'import', 'x.csv', '-o', 'p.jsonl', '--format', 'excel'], /argument 'excel' is invalid/],
    [
      ['pool', 'filter', '-i', 'p.jsonl', '-o', 'k.jsonl'],
      /required option '--criteria <criteria.json>' not specified/,
    ],
  ])('exits 2 on bad usage or input: %j', async (argv, message) => {
    const ctx = createTestContext(dir);
    expect(await main(argv, ctx)).toBe(2);
    expect(ctx.stderr.join('\n')).toMatch(message);
  });
});
