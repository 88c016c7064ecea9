import type { CellOutput } from '@junobench/notebook';
import { describe, expect, it } from 'vitest';
import { deriveTable } from './derive-table.js';
import { regularStep } from './fit-saved-table.js';
import {
  parseHtmlFrame,
  parseIndexList,
  parseInfo,
  parseSeries,
  parseTextFrame,
  printedIndexList,
  readSavedTable,
  type SavedDisplay,
} from './saved-frames.js';

// What Jupyter saves for `df.head()` of a frame (pandas' to_html), abridged as pandas truncates a wide one.
function htmlFrame(columns: string[], rows: string[][], opts: { indexName?: string; shape?: string } = {}): string {
  const head = `<tr style="text-align: right;"><th></th>${columns.map((c) => `<th>${c}</th>`).join('')}</tr>${
    opts.indexName ? `<tr><th>${opts.indexName}</th>${columns.map(() => '<th></th>').join('')}</tr>` : ''
  }`;
  const body = rows.map((r, i) => `<tr><th>${i}</th>${r.map((v) => `<td>${v}</td>`).join('')}</tr>`).join('\n');
  return `<div><style scoped>.dataframe tbody tr th {vertical-align: top;}</style><table border="1" class="dataframe">\n<thead>${head}</thead>\n<tbody>${body}</tbody>\n</table>${opts.shape ? `<p>${opts.shape}</p>` : ''}</div>`;
}

const result = (html: string, plain = ''): CellOutput => ({
  output_type: 'execute_result',
  execution_count: 1,
  data: { 'text/html': html, 'text/plain': plain },
  metadata: {},
});
const stream = (text: string): CellOutput => ({ output_type: 'stream', name: 'stdout', text });

const INFO_NEW = `<class 'pandas.core.frame.DataFrame'>
RangeIndex: 891 entries, 0 to 890
Data columns (total 4 columns):
 #   Column       Non-Null Count  Dtype  
---  ------       --------------  -----  
 0   PassengerId  891 non-null    int64  
 1   Sex          891 non-null    object 
 2   Age          714 non-null    float64
 3   Cabin Class  204 non-null    object 
dtypes: float64(1), int64(1), object(2)
memory usage: 28.0+ KB
`;

const INFO_OLD = `<class 'pandas.core.frame.DataFrame'>
DatetimeIndex: 144 entries, 1949-01-01 to 1960-12-01
Data columns (total 1 columns):
#Passengers    144 non-null int64
dtypes: int64(1)
memory usage: 2.2 KB
`;

describe('the parsers of saved outputs', () => {
  it('reads info() in the layout of pandas ≥ 1.0 and before, names with spaces included', () => {
    expect(parseInfo(INFO_NEW)).toEqual({
      rows: 891,
      dateIndex: false,
      complete: true,
      columns: [
        { name: 'PassengerId', nonNull: 891, dtype: 'int64' },
        { name: 'Sex', nonNull: 891, dtype: 'object' },
        { name: 'Age', nonNull: 714, dtype: 'float64' },
        { name: 'Cabin Class', nonNull: 204, dtype: 'object' },
      ],
    });
    expect(parseInfo(INFO_OLD)).toMatchObject({
      rows: 144,
      dateIndex: true,
      columns: [{ name: '#Passengers', nonNull: 144, dtype: 'int64' }],
    });
    // The second info() of a cell is the second block of its printed text.
    expect(parseInfo(INFO_NEW + INFO_OLD, 1)?.rows).toBe(144);
    expect(parseInfo('no frame here')).toBeUndefined();
  });

  it('reads an HTML frame: its columns, rows, index name and the size under a truncated one', () => {
    const f = parseHtmlFrame(
      htmlFrame(['Id', 'Name', '...', 'Price'], [['1', 'a &amp; b', '...', '2.50']], {
        indexName: 'Month',
        shape: '5 rows × 81 columns',
      }),
    );
    expect(f).toEqual({
      columns: ['Id', 'Name', '...', 'Price'],
      rows: [['1', 'a & b', '...', '2.50']],
      index: ['0'],
      indexName: 'Month',
      shape: [5, 81],
    });
    expect(parseHtmlFrame('<p>not a frame</p>')).toBeUndefined();
    // A long frame shown whole: its first and last rows, and a row of "..." between them that is no row.
    const long = parseHtmlFrame(htmlFrame(['a'], [['1'], ['...'], ['9']]).replace('<th>1</th>', '<th>...</th>'));
    expect(long?.index).toEqual(['0', '2']);
    expect(long?.rows).toEqual([['1'], ['9']]);
  });

  it('reads df.columns, dtypes and value_counts reprs, and refuses truncated ones', () => {
    expect(parseIndexList("Index(['Id', 'Sale Price', \"O'Neil\"], dtype='object')")).toEqual([
      'Id',
      'Sale Price',
      "O'Neil",
    ]);
    expect(parseIndexList("Index(['a', ..., 'z'], dtype='object', length=90)")).toBeUndefined();
    expect(parseSeries('Sex\nmale      577\nfemale    314\nName: count, dtype: int64')?.items).toEqual([
      ['male', '577'],
      ['female', '314'],
    ]);
    expect(parseSeries('Very good    40\nPoor         3\nName: GenHealth, dtype: int64')?.items[0]).toEqual([
      'Very good',
      '40',
    ]);
    expect(parseSeries('a    1\n    ...\nz    2')).toBeUndefined();
  });

  it('finds a regular step of dates: months on the same day, or days', () => {
    expect(regularStep(['1949-01-01', '1949-02-01', '1949-03-01'])).toEqual({ months: 1 });
    expect(regularStep(['2020-01-01', '2020-01-08', '2020-01-15'])).toEqual({ days: 7 });
    expect(regularStep(['2020-01-01', '2020-01-03', '2020-01-04'])).toBeUndefined();
  });
});

describe('readSavedTable and deriveTable: a file the notebook no longer has, as its saved outputs showed it', () => {
  const displays: SavedDisplay[] = [
    { cell: 1, kind: 'info', output: 'stream', nth: 0 },
    { cell: 2, kind: 'frame', output: 'result', nth: 0 },
    { cell: 3, kind: 'values', output: 'result', nth: 0, column: 'Survived' },
  ];
  const outputs: Record<number, CellOutput[]> = {
    1: [stream(INFO_NEW)],
    2: [
      result(
        htmlFrame(
          ['PassengerId', 'Sex', 'Age', 'Cabin Class'],
          [
            ['1', 'male', '22.0', 'NaN'],
            ['2', 'female', '38.5', 'C85'],
            ['3', 'female', 'NaN', 'NaN'],
          ],
        ),
      ),
    ],
    3: [result('', 'Survived\n0    549\n1    342\nName: count, dtype: int64')],
  };
  const saved = readSavedTable(displays, (c) => outputs[c]);

  it('gathers columns in the file order, dtypes, present counts, shown values and the row count', () => {
    expect(saved?.rows).toBe(891);
    expect(saved?.complete).toBe(true);
    expect(saved?.columns.map((c) => c.name)).toEqual(['PassengerId', 'Sex', 'Age', 'Cabin Class', 'Survived']);
    expect(saved?.columns[1]).toMatchObject({ dtype: 'object', nonNull: 891, samples: ['male', 'female', 'female'] });
    expect(saved?.columns[4]!.counts).toEqual([
      ['0', 549],
      ['1', 342],
    ]);
    expect(saved?.from[0]).toBe('code cell 1: info() (4 columns, 891 rows)');
    expect(readSavedTable(displays, () => undefined)).toBeUndefined();
  });

  it('derives the file as saved, not as the code alone would imply; keeps the values the code names', () => {
    const t = deriveTable(
      {
        columns: {
          Sex: { hints: ['number'], values: ['unknown'], cells: [4] },
          model_score: { hints: ['number'], values: [], cells: [5] },
        },
        order: ['Sex', 'model_score'],
        minRows: 0,
        columnCount: 0,
      },
      undefined,
      { ename: 'ValueError', evalue: 'x' },
      { saved: saved! },
    );
    // A listing of every column: a name only the code uses (a model's attribute) is not the file's.
    expect(t.columns.map((c) => c.name)).toEqual(['PassengerId', 'Sex', 'Age', 'Cabin Class', 'Survived']);
    expect(t.rows).toBe(891);
    const col = (n: string) => t.columns.find((c) => c.name === n)!;
    expect(col('PassengerId')).toMatchObject({ kind: 'int', unique: true, increasing: true, min: '1', max: '891' });
    expect(col('Sex').kind).toBe('category');
    expect(col('Sex').categories?.map(([v]) => v)).toEqual(['female', 'male', 'unknown']);
    expect(col('Sex').missing).toBe(0);
    expect(col('Age')).toMatchObject({ kind: 'float', decimals: 1, min: '22.0', max: '38.5' });
    expect(col('Age').missing).toBe(Math.round(891 * (1 - 714 / 891)));
    expect(col('Cabin Class').missing).toBe(891 - 204);
    expect(col('Survived').categories).toBeUndefined();
    expect(col('Survived')).toMatchObject({ kind: 'int', min: '0', max: '1' });
    expect(t.derived.join('\n')).toMatch(/not the file's \(it has no other\): model_score/);
  });
});

describe('deriveTable with saved outputs: indexes, sizes, crash values, pairs', () => {
  it('a time series shown with its named date index: the index by position is that column, in regular steps', () => {
    const ts = readSavedTable([{ cell: 0, kind: 'frame', output: 'result', nth: 0 }], () => [
      result(
        htmlFrame(['#Passengers'], [['112'], ['118'], ['132']], { indexName: 'Month' }).replace(
          /<th>(\d)<\/th><td>/g,
          (_, i: string) => `<th>1949-0${Number(i) + 1}-01</th><td>`,
        ),
      ),
    ]);
    const t = deriveTable(
      undefined,
      { index_col: 0, parse_dates: true },
      { ename: 'ValueError', evalue: 'x' },
      {
        saved: ts!,
      },
    );
    expect(t.columns.map((c) => c.name)).toEqual(['Month', '#Passengers']);
    expect(t.columns[0]).toMatchObject({ kind: 'date', min: '1949-01-01', every: { months: 1 }, ordered: true });
  });

  it("takes the file's size from the frame itself, not from its first rows shown truncated", () => {
    const shown = (kind: 'frame' | 'rows') =>
      readSavedTable([{ cell: 0, kind, output: 'result', nth: 0 }], () => [
        result(htmlFrame(['a', '...', 'z'], [['1', '...', '2']], { shape: '5 rows × 40 columns' })),
      ]);
    expect(shown('rows')?.rows).toBeUndefined();
    expect(shown('frame')?.rows).toBe(5);
    expect(shown('rows')?.complete).toBe(false);
    // print(a.shape); print(b.shape): the second printed shape line is b's.
    const printed = readSavedTable([{ cell: 0, kind: 'shape', output: 'stream', nth: 1 }], () => [
      stream('(10, 3)\nsome text\n(891, 12)\n'),
    ]);
    expect(printed?.rows).toBe(891);
  });

  it("puts a conversion crash's text in a column shown as text, not in one saved as numbers or in an id", () => {
    const shown = readSavedTable(
      [
        { cell: 0, kind: 'rows', output: 'result', nth: 0 },
        { cell: 1, kind: 'dtypes', output: 'result', nth: 0 },
      ],
      (c) =>
        c === 1
          ? [result('', 'Loan_ID    object\nIncome      int64\nArea       object\ndtype: object')]
          : [
              result(
                htmlFrame(
                  ['Loan_ID', 'Income', 'Area'],
                  [
                    ['LP001', '5849', 'Urban'],
                    ['LP002', '4583', 'Rural'],
                    ['LP003', '3000', 'Urban'],
                  ],
                ),
              ),
            ],
    );
    const t = deriveTable(
      {
        columns: { Income: { hints: [], values: [], cells: [3] }, Loan_ID: { hints: [], values: [], cells: [3] } },
        minRows: 0,
        columnCount: 0,
      },
      undefined,
      { ename: 'ValueError', evalue: "could not convert string to float: 'Semiurban'", cell: 3 },
      { saved: shown! },
    );
    const cats = (n: string) => t.columns.find((c) => c.name === n)!.categories?.map(([v]) => v) ?? [];
    expect(cats('Area')).toContain('Semiurban');
    expect(cats('Loan_ID')).not.toContain('Semiurban');
    expect(t.columns.find((c) => c.name === 'Income')!.kind).toBe('int');
  });

  it('one value shown of a yes/no column gets its other half', () => {
    const one = readSavedTable([{ cell: 0, kind: 'frame', output: 'result', nth: 0 }], () => [
      result(htmlFrame(['HeartDisease'], [['No'], ['No']])),
    ]);
    const t = deriveTable(undefined, undefined, { ename: 'ValueError', evalue: 'x' }, { saved: one! });
    expect(t.columns[0]!.categories?.map(([v]) => v)).toEqual(['No', 'Yes']);
  });
});

describe('readSavedTable and deriveTable: names with spaces, a kind of columns, rows dropped first', () => {
  // Real files have names with outer spaces ('Life expectancy '): frames and info() trim them, df.columns quotes them.
  const outputs: Record<number, CellOutput[]> = {
    0: [result(htmlFrame(['Country', 'Life expectancy', 'Measles'], [['Chad', '59.2', '12']]))],
    1: [result('', "Index(['Life expectancy ', 'Measles '], dtype='object')")],
    2: [stream(INFO_NEW)],
  };
  const displays: SavedDisplay[] = [
    { cell: 0, kind: 'rows', output: 'result', nth: 0 },
    { cell: 1, kind: 'columns', output: 'result', nth: 0, select: 'number' },
  ];

  it('reads listings of columns: Index, list and object-array reprs, printed or shown; nothing else', () => {
    expect(parseIndexList("['a', 'b c', \"d'e\"]")).toEqual(['a', 'b c', "d'e"]);
    expect(parseIndexList("array(['x', 'y'], dtype=object)")).toEqual(['x', 'y']);
    expect(parseIndexList('[1, 2, 3]')).toBeUndefined();
    expect(parseIndexList("['a', ...]")).toBeUndefined();
    expect(parseIndexList('[]')).toBeUndefined();
    const printed = "(3, 2)\nIndex(['a', 'b'], dtype='object')\n['a', 'b']\nsome text [1]\n";
    expect(printedIndexList(printed, 0)).toEqual(['a', 'b']);
    expect(printedIndexList(printed, 1)).toEqual(['a', 'b']);
    expect(printedIndexList(printed, 2)).toBeUndefined();
  });

  it('one column per name up to spaces, spelled as quoted; a select_dtypes listing gives kinds, not completeness', () => {
    const saved = readSavedTable(displays, (c) => outputs[c])!;
    expect(saved.columns.map((c) => [c.name, c.exact ?? false])).toEqual([
      ['Country', false],
      ['Life expectancy ', true],
      ['Measles ', true],
    ]);
    expect(saved.complete).toBe(true); // the frame shown had no '...' column
    const only = readSavedTable([displays[1]!], (c) => outputs[c])!;
    expect(only.complete).toBe(false);
    expect(only.columns[0]!.dtype).toBe('number');
  });

  it('a trimmed name is spelled as the code spells it, unless the crash is its absence', () => {
    const saved = readSavedTable([displays[0]!], (c) => outputs[c])!;
    const usage = (names: string[]) => ({
      columns: Object.fromEntries(names.map((n) => [n, { hints: [], values: [], cells: [3] }])),
      order: names,
      minRows: 0,
      columnCount: 0,
    });
    const t = deriveTable(usage(['Life expectancy ']), undefined, { ename: 'ValueError', evalue: 'x' }, { saved });
    expect(t.columns.map((c) => c.name)).toEqual(['Country', 'Life expectancy ', 'Measles']);
    expect(t.columns[1]).toMatchObject({ kind: 'float' });
    expect(t.derived.join('\n')).toMatch(/spelled as the code spells them .*"Life expectancy "/);
    // KeyError: 'Measles ' — the file had no such spelling: the saved one stays.
    const k = deriveTable(
      usage(['Measles ']),
      undefined,
      { ename: 'KeyError', evalue: "'Measles '", cell: 3 },
      { saved },
    );
    expect(k.columns.map((c) => c.name)).toContain('Measles');
    expect(k.columns.map((c) => c.name)).not.toContain('Measles ');
  });

  it('shown after rows were dropped: the columns and kinds, not the size or the missing counts', () => {
    const saved = readSavedTable(
      [{ cell: 2, kind: 'info', output: 'stream', nth: 0, subset: true }],
      (c) => outputs[c],
    )!;
    expect(saved.rows).toBeUndefined();
    expect(saved.columns[2]).toMatchObject({ name: 'Age', dtype: 'float64' });
    expect(saved.columns[2]!.nonNull).toBeUndefined();
    expect(
      readSavedTable([{ cell: 2, kind: 'shape', output: 'result', nth: 0, subset: true }], () => [
        result('', '(3, 2)'),
      ]),
    ).toBeUndefined();
  });
});

describe('parseTextFrame: a frame saved as text (printed, or a result without HTML), as pandas 1.5 writes it', () => {
  it('a wide frame wrapped in blocks, a name with outer and inner spaces, NaN', () => {
    const wrapped =
      '   survived     sex   age  Life expectancy   \\\n0         0    male  22.0              65.0   \n1         1  female   NaN              59.9   \n\n   embark_town  alone  \n0  Southampton  False  \n1    Cherbourg   True  ';
    expect(parseTextFrame(wrapped)).toEqual({
      columns: ['survived', 'sex', 'age', 'Life expectancy', 'embark_town', 'alone'],
      rows: [
        ['0', 'male', '22.0', '65.0', 'Southampton', 'False'],
        ['1', 'female', 'NaN', '59.9', 'Cherbourg', 'True'],
      ],
      index: ['0', '1'],
    });
  });

  it("columns left out ('...'), a long frame's rows left out, its size; the index's name; a date-time index", () => {
    const cut =
      '   survived  pclass     sex  ...   thinness  1-19 years  embark_town  alone\n0         0       3    male  ...                   17.2  Southampton  False\n1         1       1  female  ...                   17.5    Cherbourg  False\n\n[3 rows x 8 columns]';
    expect(parseTextFrame(cut)).toMatchObject({
      columns: ['survived', 'pclass', 'sex', '...', 'thinness  1-19 years', 'embark_town', 'alone'],
      shape: [3, 8],
    });
    const long =
      '     a    b\n0    0   x0\n1    1   x1\n..  ..  ...\n98  98  x98\n99  99  x99\n\n[100 rows x 2 columns]';
    expect(parseTextFrame(long)).toMatchObject({ index: ['0', '1', '98', '99'], shape: [100, 2] });
    const named = '            #Passengers\nMonth                  \n1949-01-01          112\n1949-02-01          118';
    expect(parseTextFrame(named)).toEqual({
      columns: ['#Passengers'],
      rows: [['112'], ['118']],
      index: ['1949-01-01', '1949-02-01'],
      indexName: 'Month',
    });
    const times = '                     v\n2020-01-01 10:00:00  1\n2020-01-01 11:00:00  2';
    expect(parseTextFrame(times)?.index).toEqual(['2020-01-01 10:00:00', '2020-01-01 11:00:00']);
  });

  it('not a frame: a Series, a sentence, nothing', () => {
    expect(parseTextFrame('0    22.0\n1    38.0\nName: age, dtype: float64')).toBeUndefined();
    expect(parseTextFrame('Accuracy: 0.91')).toBeUndefined();
    expect(parseTextFrame('')).toBeUndefined();
    // Hostile text: a line far wider than any frame pandas prints is refused before the width × lines scan.
    const wide = ['   a', `0  ${'x'.repeat(30_000)}`, ...Array.from({ length: 3_000 }, (_, i) => `${i}  y`)].join('\n');
    expect(parseTextFrame(wide)).toBeUndefined();
  });

  it('printed after other text, through readSavedTable; describe() as text gives the range', () => {
    const printed =
      'Shape of data (589, 3)\n  order_purchase_date product_category_name    price\n0          2016-09-05    ferramentas_jardim    49.90\n1          2016-10-04    ferramentas_jardim   461.80\n';
    const describe =
      '       survived    pclass\ncount  3.000000  3.000000\nmean   0.666667  2.333333\nmin    0.000000  1.000000\nmax    1.000000  3.000000';
    const saved = readSavedTable(
      [
        { cell: 0, kind: 'rows', output: 'stream', nth: 0 },
        { cell: 1, kind: 'describe', output: 'result', nth: 0 },
      ],
      // A result saved without its HTML (the helper's empty HTML does not parse): its text is read.
      (c) => (c === 0 ? [stream(printed)] : [result('', describe)]),
    );
    expect(saved?.columns.map((c) => c.name)).toEqual([
      'order_purchase_date',
      'product_category_name',
      'price',
      'survived',
      'pclass',
    ]);
    expect(saved?.columns[0]!.samples).toEqual(['2016-09-05', '2016-10-04']);
    expect(saved?.columns[4]).toMatchObject({ min: 1, max: 3 });
  });
});
