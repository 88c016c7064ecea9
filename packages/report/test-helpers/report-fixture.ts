// A small curated/ (and raw/) for the report's tests, written into a folder:
// every file valid against its schema, with the cases the report must get
// right — a known diff, an ANSI traceback, a disagreement resolved by an
// adjudicator, hostile notebook text, a skipped-env instance with synthetic
// data, and a flaky instance left out of the benchmark (read from raw/).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatJson, stripAnsi } from '@junobench/core';

type Cell = { md: string } | { code: string; count?: number | null; outputs?: unknown[] };

export function fixtureNotebook(cells: Cell[]): object {
  return {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: cells.map((c) =>
      'md' in c
        ? { cell_type: 'markdown', metadata: {}, source: c.md }
        : {
            cell_type: 'code',
            metadata: {},
            source: c.code,
            execution_count: c.count ?? null,
            outputs: c.outputs ?? [],
          },
    ),
  };
}

const RUNTIME = {
  kind: 'local',
  python: '/usr/bin/python3',
  pythonVersion: '3.11.2',
  packages: { pandas: '1.5.3', numpy: '1.24.2' },
};

/** Cells of pandas_1: code cell 1 changes, code cell 3 is added in the fix, code cell 2 crashes. */
export const PANDAS_REPRODUCED: Cell[] = [
  { md: '# Units sold per region' },
  { code: 'import pandas as pd', count: 1 },
  { code: "df = pd.read_csv('data/sales.csv')", count: 2 },
  { code: "df['units'].astype(int)", count: 3 },
];
export const PANDAS_FIXED: Cell[] = [
  { md: '# Units sold per region' },
  { code: 'import pandas as pd' },
  { code: "df = pd.read_csv('data/sales.csv')\ndf = df.dropna(subset=['units'])" },
  { code: "df['units'].astype(int)" },
  { code: "print('units per region computed')" },
];
export const PANDAS_ADDED_LINE = "df = df.dropna(subset=['units'])";

export const ANSI_TRACEBACK = [
  '\u001b[0;31m---------------------------------------------------------------------------\u001b[0m',
  '\u001b[0;31mIntCastingNaNError\u001b[0m                        Traceback (most recent call last)',
  "Cell \u001b[0;32mIn [3], line 1\u001b[0m\n\u001b[0;32m----> 1\u001b[0m df[\u001b[38;5;124m'units'\u001b[39m]\u001b[38;5;241m.\u001b[39mastype(\u001b[38;5;28mint\u001b[39m)\n",
  '\u001b[0;31mIntCastingNaNError\u001b[0m: Cannot convert non-finite values (NA or inf) to integer',
];

/** Text a hostile notebook carries; none of it may run, all of it must show. */
export const HOSTILE = {
  markdown: '<script>window.__pwned = 1</script> Look: <img src=x onerror="window.__pwned = 5">',
  code: 'html = "<script>window.__pwned = 2</script>"\nprint(html)',
  stream: '<script>window.__pwned = 3</script>\n',
  html: '<script>window.__pwned = 4</script><b>bold?</b>',
  diagnosis: 'The title contains </div></script><script>window.__pwned = 6</script> and the cell prints it.',
  svg: '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><script>window.__pwned = 8</script><rect width="200" height="60" fill="#4c78a8"/><text x="10" y="35" fill="#fff">library chart</text></svg>',
};

export interface ReportFixture {
  root: string;
  curated: string;
  raw: string;
}

function verification(instance: string, status: string, reproduced: object, fixed: object, extra: object = {}): object {
  return {
    instance,
    status,
    verified: status === 'verified',
    flaky: status === 'flaky',
    reproduced,
    fixed,
    contentHash: `hash-${instance}`,
    cached: false,
    ...extra,
  };
}

function version(
  v: 'reproduced' | 'fixed',
  outcome: string,
  cells: object[],
  durationMs: number,
  extra: object = {},
): object {
  return { version: v, outcome, cells, durationMs, kernelStartMs: 120, runtime: RUNTIME, ...extra };
}

const okCells = (n: number) =>
  Array.from({ length: n }, (_, index) => ({ index, status: 'ok', durationMs: 10 + index }));

export async function writeReportFixture(root: string): Promise<ReportFixture> {
  const curated = path.join(root, 'curated');
  const raw = path.join(root, 'raw');
  const write = async (rel: string, content: string | object) => {
    const file = path.join(root, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, typeof content === 'string' ? content : formatJson(content));
  };

  const pandas = {
    id: 'pandas_1',
    source: {
      platform: 'kaggle',
      notebookUrl: 'https://www.kaggle.com/code/someone/units-per-region',
      datasets: [
        {
          title: 'Regional sales',
          license: 'CC0: Public Domain',
          url: 'https://www.kaggle.com/datasets/someone/regional-sales',
        },
        { title: 'A dataset with a hostile link', license: 'unknown', url: 'javascript:window.__pwned=9' },
      ],
    },
    crash: {
      ename: 'IntCastingNaNError',
      evalue: 'Cannot convert non-finite values (NA or inf) to integer',
      match: 'exact',
      cell: 2,
    },
    execution: { order: 'file' },
    requires: ['pandas'],
    labels: {
      library: 'pandas',
      crashType: 'value error',
      rootCause: 'data confusion',
      pipelineStage: 'data preparation',
      diagnosis: 'Lines without units make the column float with NaN; astype(int) refuses NaN.',
    },
  };
  const hostile = {
    id: 'NBspecific_1',
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'NameError', evalue: "name 'undefined_name' is not defined", match: 'exact', cell: 1 },
    execution: { order: 'file' },
    requires: [],
    labels: {
      library: 'None',
      crashType: 'variable not found',
      rootCause: 'NB specific',
      pipelineStage: 'data visualization',
      diagnosis: HOSTILE.diagnosis,
    },
  };
  const tf = {
    id: 'tensorflow_1',
    source: { platform: 'local', datasets: [{ title: 'Generated digits', license: 'CC0: Public Domain' }] },
    crash: { ename: 'ValueError', evalue: 'Input 0 of layer "dense" is incompatible', match: 'prefix', cell: 1 },
    execution: { order: 'file' },
    requires: ['tensorflow'],
    labels: {
      library: 'tensorflow/keras',
      crashType: 'tensor shape mismatch',
      rootCause: 'implementation error',
      pipelineStage: 'training',
      diagnosis: 'The input shape is declared wrong.',
    },
    data: {
      synthetic: {
        reason: 'The original dataset may not be redistributed; a seeded stand-in of the same shape is used.',
        license: 'CC0: Public Domain',
        files: ['data/digits.csv'],
      },
    },
  };
  const torch = {
    id: 'torch_1',
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'RuntimeError', evalue: 'expected scalar type Long', match: 'prefix', cell: 1 },
    execution: { order: 'file' },
    requires: ['torch'],
    labels: { library: 'torch', crashType: 'type error', rootCause: 'API misuse', pipelineStage: 'training' },
  };

  const hostileCells: Cell[] = [
    { md: HOSTILE.markdown },
    {
      code: HOSTILE.code,
      count: 1,
      outputs: [
        { output_type: 'stream', name: 'stdout', text: HOSTILE.stream },
        { output_type: 'display_data', metadata: {}, data: { 'text/html': HOSTILE.html } },
      ],
    },
    { code: 'print(undefined_name)', count: 2 },
  ];
  const hostileFixed: Cell[] = [
    hostileCells[0]!,
    hostileCells[1]!,
    { code: "undefined_name = 'now defined'\nprint(undefined_name)" },
  ];
  const simple = (crash: string): Cell[] => [{ code: 'import sys' }, { code: crash }];

  // curated/instances: what the benchmark stage copies (pandas_1, NBspecific_1, tensorflow_1).
  for (const [inst, rep, fix] of [
    [pandas, PANDAS_REPRODUCED, PANDAS_FIXED],
    [hostile, hostileCells, hostileFixed],
    [tf, simple('model.fit(x, y)'), simple('model.fit(x.reshape(-1, 784), y)')],
  ] as const) {
    for (const base of [curated, raw]) {
      const dir = path.join(base, 'instances', inst.id);
      await write(path.relative(root, path.join(dir, 'instance.json')), inst);
      await write(path.relative(root, path.join(dir, 'reproduced.ipynb')), fixtureNotebook(rep as Cell[]));
      await write(path.relative(root, path.join(dir, 'fixed.ipynb')), fixtureNotebook(fix as Cell[]));
    }
  }
  const originalPandas = fixtureNotebook([
    ...PANDAS_REPRODUCED.slice(0, 3),
    {
      code: "df['units'].astype(int)",
      count: 7,
      outputs: [
        { output_type: 'error', ename: 'IntCastingNaNError', evalue: pandas.crash.evalue, traceback: ANSI_TRACEBACK },
      ],
    },
  ]);
  for (const base of ['curated', 'raw']) {
    await write(`${base}/instances/pandas_1/original.ipynb`, originalPandas);
    await write(`${base}/instances/pandas_1/data/sales.csv`, 'region,units\nnorth,3\nsouth,\n');
    await write(`${base}/instances/tensorflow_1/data/digits.csv`, 'x,y\n1,2\n');
  }
  // torch_1 is flaky, so not in the benchmark: only raw/ has it.
  await write('raw/instances/torch_1/instance.json', torch);
  await write('raw/instances/torch_1/reproduced.ipynb', fixtureNotebook(simple('loss(out, y.float())')));
  await write('raw/instances/torch_1/fixed.ipynb', fixtureNotebook(simple('loss(out, y.long())')));

  const entry = (
    inst: typeof pandas | typeof hostile | typeof tf,
    status: string,
    reproduced: string,
    fixed: string,
    extra: object = {},
  ) => ({
    id: inst.id,
    source: inst.source,
    crash: inst.crash,
    execution: inst.execution,
    labels: inst.labels,
    requires: inst.requires,
    syntheticData: 'data' in inst,
    verification: { status, reproduced, fixed, ...extra },
  });
  await write('curated/benchmark.json', {
    name: 'JunoBench',
    version: '0.0.0-test',
    instances: [
      entry(hostile, 'verified', 'crash-reproduced', 'fixed-ok'),
      entry(pandas, 'verified', 'crash-reproduced', 'fixed-ok'),
      entry(tf, 'skipped', 'skipped-env', 'skipped-env', { reason: 'required module tensorflow is not importable' }),
    ],
  });

  const tb = (cell: number, ename: string, evalue: string, traceback: string[]) => ({
    index: cell,
    status: 'error',
    ename,
    evalue,
    traceback,
    durationMs: 42,
  });
  await write('curated/verification.json', {
    runtime: 'local',
    summary: { total: 4, verified: 2, notVerified: 0, skipped: 1, flaky: 1 },
    instances: [
      verification(
        'NBspecific_1',
        'verified',
        version(
          'reproduced',
          'crash-reproduced',
          [
            ...okCells(1),
            tb(1, 'NameError', hostile.crash.evalue, ["NameError: name 'undefined_name' is not defined"]),
            { index: 2, status: 'not-run', durationMs: 0 },
          ],
          900,
          {
            observed: { ename: 'NameError', evalue: hostile.crash.evalue, cell: 1, line: 1 },
          },
        ),
        version('fixed', 'fixed-ok', okCells(3), 950),
      ),
      verification(
        'pandas_1',
        'verified',
        version(
          'reproduced',
          'crash-reproduced',
          [...okCells(2), tb(2, 'IntCastingNaNError', pandas.crash.evalue, ANSI_TRACEBACK.map(stripAnsi))],
          1234,
          {
            observed: { ename: 'IntCastingNaNError', evalue: pandas.crash.evalue, cell: 2, line: 1 },
          },
        ),
        version('fixed', 'fixed-ok', okCells(4), 2345),
      ),
      verification(
        'tensorflow_1',
        'skipped',
        version('reproduced', 'skipped-env', [], 0, {
          reason: 'required module tensorflow is not importable',
          runtime: { ...RUNTIME, packages: { tensorflow: null } },
        }),
        version('fixed', 'skipped-env', [], 0, {
          reason: 'required module tensorflow is not importable',
          runtime: { ...RUNTIME, packages: { tensorflow: null } },
        }),
      ),
      verification(
        'torch_1',
        'flaky',
        version(
          'reproduced',
          'crash-reproduced',
          [
            ...okCells(1),
            tb(1, 'RuntimeError', 'expected scalar type Long but found Float', [
              'RuntimeError: expected scalar type Long but found Float',
            ]),
          ],
          3000,
          {
            observed: { ename: 'RuntimeError', evalue: 'expected scalar type Long but found Float', cell: 1 },
          },
        ),
        version('fixed', 'fixed-ok', okCells(2), 2800),
        { repeats: { reproduced: ['crash-reproduced', 'no-crash'], fixed: ['fixed-ok', 'fixed-ok'] } },
      ),
    ],
  });

  const sources = { library: 'agreed', crashType: 'agreed', rootCause: 'agreed', pipelineStage: 'agreed' };
  const finals = [
    { instance: 'NBspecific_1', labels: hostile.labels, sources },
    {
      instance: 'pandas_1',
      labels: pandas.labels,
      sources: { ...sources, crashType: 'adjudicated' },
      diagnosisSource: 'annotator',
    },
    { instance: 'tensorflow_1', labels: tf.labels, sources },
    { instance: 'torch_1', labels: torch.labels, sources },
  ];
  await write('curated/labels/final-labels.jsonl', finals.map((f) => JSON.stringify(f)).join('\n') + '\n');
  await write(
    'raw/annotations/adjudicated.jsonl',
    JSON.stringify({
      instance: 'pandas_1',
      annotator: 'adjudicated',
      crashType: 'value error',
      note: 'IntCastingNaNError is a ValueError: the crash type is the exception class.',
    }) + '\n',
  );
  const pair = (kappa: number) => ({
    annotators: ['annotator-a', 'annotator-b'],
    n: 4,
    categories: ['a', 'b'],
    observed: 0.75,
    chance: 0.3,
    kappa,
    se: 0.1,
    se0: 0.2,
    z: 3.1,
    ciAsymptotic: [Math.max(-1, kappa - 0.2), Math.min(1, kappa + 0.2)],
    bootstrap: { resamples: 100, undefinedResamples: 0, ci: [Math.max(-1, kappa - 0.3), 1] },
    perCategory: [{ category: 'value error', counts: [2, 1], both: 1, positiveAgreement: 0.667, kappa: 0.5 }],
  });
  const dim = (dimension: string, kappa: number) => ({
    dimension,
    kappa,
    pairs: [pair(kappa)],
    alpha: { alpha: kappa, units: 4, pairableValues: 8, observedDisagreement: 0.25, expectedDisagreement: 0.7 },
  });
  await write('curated/labels/agreement.json', {
    annotators: ['annotator-a', 'annotator-b'],
    instances: 4,
    singlyAnnotated: [],
    settings: { seed: 'junobench', bootstrap: 100, confidence: 0.95 },
    dimensions: [dim('library', 1), dim('crashType', 0.64), dim('rootCause', 1), dim('pipelineStage', 1)],
    disagreements: [
      {
        instance: 'pandas_1',
        dimension: 'crashType',
        labels: { 'annotator-a': 'value error', 'annotator-b': 'invalid argument' },
      },
    ],
  });
  const count = (value: string, n: number) => ({ value, count: n, share: n / 3 });
  await write('curated/stats/stats.json', {
    total: 3,
    counts: {
      library: [count('pandas', 1), count('None', 1), count('tensorflow/keras', 1)],
      crashType: [count('value error', 1), count('variable not found', 1), count('tensor shape mismatch', 1)],
      rootCause: [count('data confusion', 1), count('NB specific', 1), count('implementation error', 1)],
      pipelineStage: [count('data preparation', 1), count('data visualization', 1), count('training', 1)],
    },
    crossTables: [
      {
        rows: 'library',
        columns: 'rootCause',
        rowValues: ['pandas', 'None', 'tensorflow/keras'],
        columnValues: ['data confusion', 'NB specific', 'implementation error'],
        counts: [
          [1, 0, 0],
          [0, 1, 0],
          [0, 0, 1],
        ],
        rowTotals: [1, 1, 1],
        columnTotals: [1, 1, 1],
      },
    ],
  });
  await write('curated/stats/stats.md', '# Benchmark statistics\n');
  await write('curated/stats/charts/library.svg', HOSTILE.svg);
  await write('curated/stats/charts/library.vl.json', { title: { text: 'Instances by library cause' } });
  return { root, curated, raw };
}
