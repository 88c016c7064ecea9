import { describe, expect, it } from 'vitest';
import {
  BENCHMARK_COLUMNS,
  EMPIRICAL_COLUMNS,
  detectSheetKind,
  hashCrashId,
  libraryFromNotebookName,
  missingColumns,
  parseIsMlBug,
  parseLibraryLabel,
  parseSheetHeader,
  sheetRowToRecord,
  type SheetHeader,
} from './sheet-formats.js';
import type { CellValue } from './read-sheet-rows.js';

function header(names: readonly string[]): SheetHeader {
  const h = parseSheetHeader(names);
  if ('message' in h) throw new Error(h.message);
  return h;
}

const TB = "['Traceback (most recent call last)', 'KeyError: \\'a\\'']";

function empiricalRow(over: Partial<Record<(typeof EMPIRICAL_COLUMNS)[number], CellValue>> = {}): CellValue[] {
  const base: Record<string, CellValue> = {
    fname: 'abc_nb.ipynb',
    eid: 'e-1',
    ename: 'keyerror',
    evalue: "'a'",
    traceback: TB,
    nb_source: 1,
    cluster_id: 3,
    'Libs-cause': 'pandas',
    label_refined_exp_type: 'keyerror',
    label_root_cause: 'misunderstanding of data structure',
    label_if_ML_bug: 'ML/data science library related (ML imports, error raised by library)',
    label_ML_pipeline: 'data preparation/preprocessing',
    ename_mapped: 'keyerror',
    evalue_processed: '<str>',
    pregroup_cluster: 'keyerror_3',
    nb_url_kaggle: 'https://www.kaggle.com/code/u/nb',
    ...over,
  };
  return EMPIRICAL_COLUMNS.map((c) => base[c] ?? null);
}

describe('parseSheetHeader / detectSheetKind / missingColumns', () => {
  it.each([
    ['empirical columns', [...EMPIRICAL_COLUMNS], 'empirical'],
    ['benchmark columns', [...BENCHMARK_COLUMNS], 'benchmark'],
    ['case and spaces do not matter', [' FNAME ', 'ename', 'evalue', 'traceback', 'NB_SOURCE'], 'empirical'],
    ['neither', ['a', 'b', 'c'], undefined],
  ])('%s', (_name, names, kind) => {
    expect(detectSheetKind(header(names))).toBe(kind);
  });

  it('names empty header cells and keeps original names', () => {
    const h = header(['fname', null as unknown as string, 'Libs-cause']);
    expect(h.names).toEqual(['fname', 'column_2', 'Libs-cause']);
  });

  it('refuses duplicate column names', () => {
    expect(parseSheetHeader(['ename', 'ename'])).toMatchObject({ message: expect.stringMatching(/"ename" twice/) });
  });

  it('lists missing required columns', () => {
    expect(missingColumns(header(['fname', 'ename', 'evalue']), 'empirical')).toEqual(['traceback', 'nb_source']);
    expect(missingColumns(header([...BENCHMARK_COLUMNS]), 'benchmark')).toEqual([]);
  });
});

describe('sheetRowToRecord (empirical)', () => {
  const h = header([...EMPIRICAL_COLUMNS]);

  it('keeps columns named __proto__ and constructor as columns (nothing lost, no prototype touched)', () => {
    const h2 = header([...EMPIRICAL_COLUMNS, '__proto__', 'constructor']);
    const result = sheetRowToRecord('empirical', h2, [...empiricalRow(), 'polluted', 'ctor']);
    const columns = 'record' in result ? result.record.columns : {};
    expect(Object.keys(columns)).toContain('__proto__');
    expect(JSON.parse(JSON.stringify(columns))).toMatchObject({ constructor: 'ctor' });
    expect(JSON.stringify(columns)).toContain('"__proto__":"polluted"');
    expect(Object.getPrototypeOf(columns)).toBe(Object.prototype);
  });

  it('maps a row to a CrashRecord with labels and every column verbatim', () => {
    const result = sheetRowToRecord('empirical', h, empiricalRow());
    expect('record' in result && result.record).toEqual({
      id: 'e-1',
      notebook: 'abc_nb.ipynb',
      source: 'kaggle',
      url: 'https://www.kaggle.com/code/u/nb',
      ename: 'keyerror',
      evalue: "'a'",
      traceback: ['Traceback (most recent call last)', "KeyError: 'a'"],
      labels: {
        library: 'pandas',
        crashType: 'keyerror',
        rootCause: 'misunderstanding of data structure',
        pipelineStage: 'data preparation/preprocessing',
        isMlBug: true,
      },
      columns: Object.fromEntries(EMPIRICAL_COLUMNS.map((c, i) => [c, empiricalRow()[i]])),
    });
  });

  it.each([
    ['nb_source 2 is GitHub', { nb_source: '2' }, { source: 'github' }],
    ['nb_source as "1.0"', { nb_source: '1.0' }, { source: 'kaggle' }],
    [
      'Libs-cause tensorflow → tensorflow/keras',
      { 'Libs-cause': 'tensorflow' },
      { labels: expect.objectContaining({ library: 'tensorflow/keras' }) },
    ],
    [
      'Libs-cause keras',
      { 'Libs-cause': 'Keras' },
      { labels: expect.objectContaining({ library: 'tensorflow/keras' }) },
    ],
    [
      'general code error is not an ML bug',
      { label_if_ML_bug: 'general code error' },
      { labels: expect.objectContaining({ isMlBug: false }) },
    ],
    [
      'no eid: a hash of notebook, ename and evalue',
      { eid: null },
      { id: hashCrashId('abc_nb.ipynb', 'keyerror', "'a'") },
    ],
    ['numeric evalue becomes text', { evalue: 0, ename: 'KeyError' }, { evalue: '0' }],
  ])('%s', (_name, over, expected) => {
    const result = sheetRowToRecord('empirical', h, empiricalRow(over as Record<string, CellValue>));
    expect('record' in result ? result.record : result).toMatchObject(expected);
  });

  it.each([
    ['missing value (ename)', { ename: null }, /missing value: ename/, 'ename'],
    ['missing value (traceback)', { traceback: '' }, /missing value: traceback/, 'traceback'],
    ['missing value (fname)', { fname: null }, /missing value: fname/, 'fname'],
    ['missing value (nb_source)', { nb_source: null }, /missing value: nb_source/, 'nb_source'],
    [
      'wrong type (nb_source)',
      { nb_source: 'kagle' },
      /wrong type: nb_source must be 1 \(Kaggle\) or 2 \(GitHub\), got "kagle"/,
      'nb_source',
    ],
    [
      'wrong type (ename is a number)',
      { ename: 42 },
      /wrong type: ename must be an exception class name, got the number 42/,
      'ename',
    ],
    ['wrong type (traceback is a number)', { traceback: 7 }, /wrong type: traceback must be text/, 'traceback'],
    [
      'unparseable traceback',
      { traceback: "['a', None]" },
      /unparseable traceback: expected a quoted string, found "None" \(at character 7\)/,
      'traceback',
    ],
  ])('rejects a row with %s', (_name, over, reason, field) => {
    const result = sheetRowToRecord('empirical', h, empiricalRow(over as Record<string, CellValue>));
    expect(result).toEqual({ problem: { reason: expect.stringMatching(reason), field } });
  });

  it('rejects a row with more cells than the header', () => {
    const result = sheetRowToRecord('empirical', h, [...empiricalRow(), 'extra']);
    expect(result).toEqual({
      problem: { reason: expect.stringMatching(/17 cells but the header names only 16 columns/) },
    });
  });

  it('keeps a truncated traceback with a warning', () => {
    const result = sheetRowToRecord('empirical', h, empiricalRow({ traceback: "['Traceback', 'ValueError: cut" }));
    expect(result).toMatchObject({
      record: { traceback: ['Traceback', 'ValueError: cut'] },
      warnings: [expect.stringMatching(/cut short/)],
    });
  });
});

describe('sheetRowToRecord (benchmark)', () => {
  const h = header([...BENCHMARK_COLUMNS]);
  const row = (nbName: string, url: string | null): CellValue[] =>
    BENCHMARK_COLUMNS.map(
      (c) =>
        ({
          nb_name: nbName,
          eid: `id-${nbName}`,
          ename: 'valueerror',
          evalue: 'bad',
          traceback: "['ValueError: bad']",
          label_root_cause: 'API misuse',
          label_refined_exp_type: 'invalid argument',
          label_ML_pipeline: 'training',
          label_if_ML_bug: 'ML bug',
          NotebookUrl: url,
        })[c as string] ?? null,
    );

  it.each([
    ['tensorflow_3', 'https://www.kaggle.com/code/a/b', 'tensorflow/keras', 'kaggle'],
    ['NBspecific_12', 'https://www.kaggle.com/code/a/b', 'None', 'kaggle'],
    ['sklearn_1', 'https://github.com/a/b/blob/main/nb.ipynb', 'sklearn', 'github'],
    ['pandas_15', null, 'pandas', 'unknown'],
    ['pandas_1.ipynb', null, 'pandas', 'unknown'],
    ['NBspecific_4.ipynb', 'https://www.kaggle.com/code/a/b', 'None', 'kaggle'],
  ])('%s → library %s from the name prefix, source from the URL', (nbName, url, library, source) => {
    const result = sheetRowToRecord('benchmark', h, row(nbName, url));
    expect(result).toMatchObject({
      record: { notebook: nbName, source, labels: { library, rootCause: 'API misuse', isMlBug: true } },
    });
  });
});

describe('label helpers', () => {
  it.each([
    ['ML/data science library related (ML imports, error raised by library)', true],
    ['ML bug', true],
    ['general code error', false],
    ['python bug', false],
    ['unknown', undefined],
    [undefined, undefined],
  ])('parseIsMlBug(%j) = %j', (v, expected) => {
    expect(parseIsMlBug(v)).toBe(expected);
  });

  it.each([
    ['tensorflow', 'tensorflow/keras'],
    ['keras, tensorflow', 'tensorflow/keras'],
    ['scikit-learn', 'sklearn'],
    ['None', 'None'],
    ['pandas, numpy', 'pandas'],
    ['SomeNewLib', 'SomeNewLib'],
    ['  ', undefined],
    [undefined, undefined],
  ])('parseLibraryLabel(%j) = %j', (v, expected) => {
    expect(parseLibraryLabel(v)).toBe(expected);
  });

  it.each([
    ['NBspecific_3', 'None'],
    ['tensorflow_10', 'tensorflow/keras'],
    ['torchvision_1', 'torchvision'],
    ['pandas_1.ipynb', 'pandas'],
    ['NBspecific_2.IPYNB', 'None'],
    [' tensorflow_7.ipynb ', 'tensorflow/keras'],
    ['no-number', undefined],
    ['no-number.ipynb', undefined],
  ])('libraryFromNotebookName(%s) = %j', (name, expected) => {
    expect(libraryFromNotebookName(name)).toBe(expected);
  });

  it('hashes ids stably', () => {
    expect(hashCrashId('nb', 'KeyError', "'a'")).toBe(hashCrashId('nb', 'KeyError', "'a'"));
    expect(hashCrashId('nb', 'KeyError', "'a'")).not.toBe(hashCrashId('nb', 'KeyError', "'b'"));
    expect(hashCrashId('nb', 'KeyError', "'a'")).toMatch(/^[0-9a-f]{32}$/);
  });
});
