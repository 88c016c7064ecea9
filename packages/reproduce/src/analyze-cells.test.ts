// The analyser under Debian's python3 (pyflakes and IPython installed by tools/setup-python.sh): it parses, never runs.
import { execaRunner } from '@junobench/runtime';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeCells, type NotebookFacts } from './analyze-cells.js';
import { deriveTable } from './derive-table.js';
import { planDataNeeds } from './plan-data-needs.js';
import { planPackages, planShellLines } from './plan-packages.js';

const CELLS = [
  'import pandas as pd\nimport tensorflow as tf\nfrom google.colab import drive\ndrive.mount("/content/drive")\nimport xgboost as xgb\n%matplotlib inline\n!pip install xgboost\n!wget -O titanic.csv https://example.org/data/titanic.csv',
  "PATH = '../input/titanic/'\ndf = pd.read_csv(PATH + 'train.csv', sep=';')\ndf.head(10)",
  "df['Age'] = df['Age'].fillna(df['Age'].mean())\ndf = df[df['Sex'] == 'male']\ndf['Embarked'].value_counts()\ndf['Fare_log'] = np.log(df['Fare'])\nsns.countplot(x='Pclass', data=df)\ndf['Name'].str.lower()",
  "y = df['Survived']\nX = df.drop(['Survived'], axis=1)\nmodel = xgb.XGBClassifier()\nmodel.fit(X, y)\nlater + 1\nextra = pd.read_csv('titanic.csv')\nimg = Image.open('/home/u/pics/cat.jpg')\nmodel.cuda()",
  'later = 3',
];

let facts: NotebookFacts;
beforeAll(async () => {
  facts = await analyzeCells(
    CELLS.map((source, index) => ({ index, source })),
    { python: '/usr/bin/python3', run: execaRunner },
  );
}, 60_000);

describe('analyzeCells (Python ast and pyflakes)', () => {
  it('reports bindings, unbound uses, imports, shell lines, URLs, reads and GPU lines per cell', () => {
    expect(facts.checker).toBe('pyflakes');
    const [c0, c1, c2, c3, c4] = facts.cells;
    expect(c0!.imports.map((i) => i.module)).toEqual(['pandas', 'tensorflow', 'google.colab', 'xgboost']);
    expect(c0!.shell.map((s) => s.command)).toEqual([
      'pip install xgboost',
      'wget -O titanic.csv https://example.org/data/titanic.csv',
    ]);
    expect(c0!.urls.map((u) => u.url)).toEqual(['https://example.org/data/titanic.csv']);
    expect(c1!.reads).toMatchObject([
      { path: '../input/titanic/train.csv', call: 'pd.read_csv', options: { sep: ';' } },
    ]);
    expect(c3!.undefinedNow).toContain('later');
    // Changed in place: stored into, a method's receiver (a module's too: conservative); a plain argument is only read.
    expect(c2!.mutates).toEqual(['df', 'np', 'sns']);
    expect(c3!.mutates).toEqual(expect.arrayContaining(['model', 'pd', 'xgb', 'Image']));
    expect(c3!.mutates).not.toContain('X');
    expect(c3!.gpu.map((g) => g.text)).toEqual(['model.cuda()']);
    expect(c3!.reads.map((r) => r.path)).toEqual(['titanic.csv', '/home/u/pics/cat.jpg']);
    expect(c4!.defines).toEqual(['later']);
  });

  it('derives a table from what the code does with it', () => {
    const read = facts.cells[1]!.reads[0]!;
    const t = deriveTable(facts.tables[read.id], read.options, { ename: 'KeyError', evalue: "'Embarked'" });
    const kinds = Object.fromEntries(t.columns.map((c) => [c.name, c.kind]));
    expect(kinds).toEqual({
      Age: 'float',
      Sex: 'category',
      Pclass: 'category',
      Fare: 'float',
      Name: 'category',
      Survived: 'category',
    });
    expect(t.columns.find((c) => c.name === 'Sex')!.categories!.map(([v]) => v)).toContain('male');
    expect(t.columns.find((c) => c.name === 'Age')!.missing).toBeGreaterThan(0);
    expect(t.columns.find((c) => c.name === 'Survived')!.categories!.map(([v]) => v)).toEqual(['0', '1']);
    expect(t.delimiter).toBe(';');
    expect(t.rows).toBeGreaterThanOrEqual(11);
    expect(t.derived.join('\n')).toContain('left out (the crash is their absence): Embarked');
  });

  it('plans packages: an unused missing import left out, a used one reported, with Colab drive mounts', () => {
    const p = planPackages(
      facts.cells,
      3,
      { pandas: true, tensorflow: false, google: false, xgboost: false },
      [{ name: 'pypi', installer: 'pip', modules: { xgboost: 'xgboost==2.1.1', tensorflow: 'tensorflow==2.17.0' } }],
      CELLS,
    );
    expect(p.drop.map((d) => [d.cell, d.line])).toEqual([
      [0, 2],
      [0, 3],
      [0, 4],
    ]);
    expect(p.missing).toEqual([
      { module: 'xgboost', cell: 0, usedBeforeCrash: true, pip: 'xgboost==2.1.1', profiles: ['pypi'], platform: false },
    ]);
  });

  it('plans the inputs: a shell download, a rewritten path to derive, an image', () => {
    const shell = planShellLines(facts.cells, 3);
    expect(shell.downloads).toEqual([{ url: 'https://example.org/data/titanic.csv', name: 'titanic.csv', cell: 0 }]);
    const needs = planDataNeeds(facts, 3, [], shell, { ename: 'KeyError', evalue: "'x'" });
    expect(needs.map((n) => [n.file, n.url ?? null, n.derive?.type ?? null])).toEqual([
      ['data/cat.jpg', null, 'image'],
      ['data/titanic.csv', 'https://example.org/data/titanic.csv', 'table'],
      ['data/titanic/train.csv', null, 'table'],
    ]);
  });
});

describe('analyzeCells: what the code does with a table, through names and estimators', () => {
  it('list constants, agg keys, a split target, positional slices, scalers, split violins, renames and dates', async () => {
    const cells = [
      "import pandas as pd\ndf = pd.read_csv('t.csv', index_col='Month', parse_dates=True)\ncols = ['a', 'b']\nsub = df.loc[:, cols]",
      "df.groupby(['g']).agg({'Spent': sum})\nX = df.iloc[:, :-1]\ny = df['label']\nX_train, X_test, y_train, y_test = train_test_split(X, y)\nclf = LogisticRegression()\nclf.fit(X_train, y_train)",
      "sc = MinMaxScaler()\nsc.fit_transform(df[['Age']])\nsns.violinplot(x='day', y='tip', hue='sex', split=True, data=df)\ntrain = df.loc['1949-01-01':'1957-12-01']",
      "counts = df.isnull().sum().reset_index()\ncounts.columns = ['col_name', 'n']",
    ];
    const f = await analyzeCells(
      cells.map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    const t = Object.values(f.tables)[0]!;
    expect(Object.keys(t.columns)).toEqual(expect.arrayContaining(['a', 'b', 'Spent', 'label', 'Age', 'sex']));
    expect(t.columns.Spent!.hints).toContain('number');
    expect(t.columns.label!.hints).toContain('target-class');
    expect(t.columns.Age!.hints).toEqual(['number']);
    expect(t.columns.sex!.hints).toContain('two-levels');
    expect(t.columnCount).toBe(2);
    expect(t.renamed).toBeUndefined();
    expect(f.cells[2]!.dates).toEqual(['1949-01-01', '1957-12-01']);
  }, 60_000);

  it('one column one-hot encoded: names used only on frames made with its dummies are its values', async () => {
    const cells = [
      "import pandas as pd\ndf = pd.read_csv('homes.csv')\ndummies = pd.get_dummies(df.town)",
      "merged = pd.concat([df, dummies], axis=1)\nfinal = merged.drop(['town', 'west'], axis=1)\nfinal[['area', 'east']]",
      "X = df[['town', 'area']].values",
    ];
    const f = await analyzeCells(
      cells.map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    const t = Object.values(f.tables)[0]!;
    const tableOf = deriveTable(t, undefined, { ename: 'ValueError', evalue: 'x' });
    expect(t.columns.town!.hints).toContain('dummies');
    expect(t.columns.east!.via).toEqual(['dummies']);
    expect(t.columns.area!.via).toEqual(expect.arrayContaining(['dummies', 'plain']));
    expect(tableOf.columns.map((c) => c.name)).toEqual(['town', 'area']);
    expect(tableOf.columns[0]!.categories?.map(([v]) => v)).toEqual(['east', 'west']);
  }, 60_000);
});

describe('analyzeCells: saved outputs that show a read frame', () => {
  it("records the frame's own displays, in order per output, until the code changes it in place", async () => {
    const cells = [
      "import pandas as pd\ntrain = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\ntrain.info()\ntest.info()\ntrain.head()",
      "display(test.describe())\ntrain['Sex'].value_counts()",
      'print(test.shape)\nprint(train.shape)\ntrain.shape',
      "train['Sex'] = train['Sex'].map({'male': 0})\ntrain.head()",
      'test = test.dropna()\ntest.head()',
    ];
    const f = await analyzeCells(
      cells.map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    const [train, test] = Object.values(f.tables);
    expect(train!.displays).toEqual([
      { cell: 0, kind: 'info', output: 'stream', nth: 0 },
      { cell: 0, kind: 'rows', output: 'result', nth: 0 },
      { cell: 1, kind: 'values', output: 'result', nth: 0, column: 'Sex' },
      { cell: 2, kind: 'shape', output: 'stream', nth: 1 },
      { cell: 2, kind: 'shape', output: 'result', nth: 0 },
    ]);
    expect(test!.displays).toEqual([
      { cell: 0, kind: 'info', output: 'stream', nth: 1 },
      { cell: 1, kind: 'describe', output: 'display', nth: 0 },
      { cell: 2, kind: 'shape', output: 'stream', nth: 0 },
      // Rows dropped: still the file's columns, not its size.
      { cell: 4, kind: 'rows', output: 'result', nth: 0, subset: true },
    ]);
  }, 60_000);

  it('follows a frame through dropped rows (reassigned, masked, in place) but not dropped columns; select_dtypes', async () => {
    const cells = [
      "import pandas as pd\ndf = pd.read_csv('d.csv')\ndf.select_dtypes(include='number').columns",
      'df.dropna(inplace=True)\ndf.info()',
      "df = df[df['Year'] > 2000]\nprint(df.shape)\ndf.isnull().sum()",
      "df.sort_values('Year', inplace=True)\ndf.loc[df.Year > 2001, :].head()",
      "d = pd.get_dummies(df, columns=['Status'])\ndf = df.dropna(axis=1)\ndf.head()",
    ];
    const f = await analyzeCells(
      cells.map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    const [t] = Object.values(f.tables);
    expect(t!.displays).toEqual([
      { cell: 0, kind: 'columns', output: 'result', nth: 0, select: 'number' },
      { cell: 1, kind: 'info', output: 'stream', nth: 0, subset: true },
    ]);
    expect(t!.columns.Status!.hints).toContain('category');
    const g = await analyzeCells(
      [
        "import pandas as pd\ndf = pd.read_csv('d.csv')\nprint(df.columns)\nprint(list(df))\ndf.columns.tolist()",
        'display(df.columns.values, df.keys())\nlist(df.columns)',
      ].map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    expect(Object.values(g.tables)[0]!.displays).toEqual([
      { cell: 0, kind: 'columns', output: 'stream', nth: 0 },
      { cell: 0, kind: 'columns', output: 'stream', nth: 1 },
      { cell: 0, kind: 'columns', output: 'result', nth: 0 },
      { cell: 1, kind: 'columns', output: 'display', nth: 0 },
      { cell: 1, kind: 'columns', output: 'display', nth: 1 },
      { cell: 1, kind: 'columns', output: 'result', nth: 0 },
    ]);
  }, 60_000);
});

describe('analyzeCells: what is made from a frame and is not one', () => {
  it("a model, its fit and a test's result are not frames: their attributes are not the file's columns", async () => {
    const f = await analyzeCells(
      [
        "import pandas as pd\ndf = pd.read_csv('air.csv', index_col='Month')\nd = seasonal_decompose(df['Passengers'])\nd.trend.plot(); d.resid.mean()",
        'model = ARIMA(df, order=(1, 1, 1))\nfit = model.fit()\nfit.resid.plot()\nkm = KMeans(3).fit(df)\nkm.labels_\nframe = pd.DataFrame(df)\nframe.Other',
      ].map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    expect(Object.keys(Object.values(f.tables)[0]!.columns).sort()).toEqual(['Other', 'Passengers']);
  }, 60_000);
});

describe('analyzeCells: globs', () => {
  it("a folder's own glob under a folder passed in is no path of its own; the glob module's and a known folder's are", async () => {
    const f = await analyzeCells(
      [
        "import glob, pathlib\nfiles = glob.glob('imgs/*.png')\nq = pathlib.Path('data/pics').glob('*/*.jpg')",
        'class Images:\n    def __init__(self, targ_dir):\n        self.paths = list(pathlib.Path(targ_dir).glob("*/*.jpg"))',
      ].map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    expect(f.cells[0]!.reads.map((r) => r.path)).toEqual(['imgs/*.png', 'data/pics/*/*.jpg']);
    // Read as a path of its own, it was rewritten into data/ (`glob("data/*/*.jpg")` under the folder: nothing found).
    expect(f.cells[1]!.reads).toEqual([]);
  }, 60_000);
});

describe('analyzeCells: the same facts on every run', () => {
  it("a merged frame's target goes to the read that named the column, whatever Python's hash seed", async () => {
    const cells = [
      "import pandas as pd\ntrain = pd.read_csv('train.csv')\noil = pd.read_csv('oil.csv')\ntrain.groupby('date')['sales'].sum()",
      "df = train.merge(oil, on='date')\nrf = RandomForestRegressor()\nrf.fit(df[['price']], df['sales'])",
    ].map((source, index) => ({ index, source }));
    // The script's own order, not only the seed analyzeCells fixes: each run here gets another seed (before the fix,
    // seeds 1-4 gave one read the target and 5-8 the other).
    const runs = await Promise.all(
      ['1', '2', '3', '4', '5', '6', '7', '8'].map((seed) =>
        analyzeCells(cells, {
          python: '/usr/bin/python3',
          run: (file, args, options) => execaRunner(file, args, { ...options, env: { PYTHONHASHSEED: seed } }),
        }),
      ),
    );
    for (const f of runs.slice(1)) expect(JSON.stringify(f)).toBe(JSON.stringify(runs[0]));
    const [train, oil] = runs[0]!.cells[0]!.reads.map((r) => runs[0]!.tables[r.id]!);
    expect(train!.columns.sales!.hints).toContain('target-number');
    expect(oil!.columns.sales?.hints ?? []).not.toContain('target-number');
  }, 60_000);
});

describe('analyzeCells: a merge of two reads', () => {
  it("its keys are both frames' columns; a column named on its result is one frame's only", async () => {
    const f = await analyzeCells(
      [
        "import pandas as pd\nschools = pd.read_csv('schools.csv')\nstudents = pd.read_csv('students.csv')",
        "total = pd.merge(students, schools, how='left', on=['school_name'])\ntotal['math_score'].mean()\ntotal.budget.sum()",
        "schools['size'].sum()\nboth = students.merge(schools, left_on='school', right_on='name')\nboth['size'].max()",
        // Frames made from the merge alone are the merge's too.
        "total = total.fillna(0)\nX = total.drop('passed', axis=1)\nX.groupby('grade').count()",
      ].map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    const [schools, students] = f.cells[0]!.reads.map((r) => Object.keys(f.tables[r.id]!.columns).sort());
    // A column both files had would come out of the merge as `x_x` and `x_y`, and `total['x']` would fail: only the
    // `on` keys are in both. A column is given to the left frame (pd.merge's first, or the receiver) unless the code
    // named it on the other one.
    expect(students).toEqual(['budget', 'grade', 'math_score', 'passed', 'school', 'school_name']);
    expect(schools).toEqual(['name', 'school_name', 'size']);
  }, 60_000);
});

describe('analyzeCells: URLs the code builds from string constants', () => {
  it('names the URL a constant is built to (a root plus a path), handed to a function as a default', async () => {
    const cells = [
      "import os, tarfile, urllib.request\nROOT = 'https://example.org/book/master/'\nDATA_URL = ROOT + 'datasets/houses/houses.tgz'\nOTHER = os.path.join('data', 'x')",
      'def fetch(url=DATA_URL, to=OTHER):\n    urllib.request.urlretrieve(url, os.path.join(to, "houses.tgz"))',
    ];
    const f = await analyzeCells(
      cells.map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    const urls = f.cells[0]!.urls.map((u) => u.url);
    expect(urls).toContain('https://example.org/book/master/datasets/houses/houses.tgz');
    expect(urls).toContain('https://example.org/book/master/');
    expect(urls.filter((u) => !u.startsWith('https://'))).toEqual([]);
  }, 60_000);

  it("names what a dataset fetcher reads: seaborn's load_dataset, kagglehub; not Hugging Face's load_dataset", async () => {
    const cells = [
      "import seaborn as sns\nimport kagglehub\nNAME = 'titanic'\ndf = sns.load_dataset(NAME)\npath = kagglehub.dataset_download('owner/house-prices')",
      "from datasets import load_dataset\nds = load_dataset('imdb')",
    ];
    const f = await analyzeCells(
      cells.map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    expect(f.cells[0]!.urls).toEqual([
      {
        url: 'https://raw.githubusercontent.com/mwaskom/seaborn-data/master/titanic.csv',
        line: 4,
        call: 'seaborn.load_dataset',
      },
      { url: 'https://www.kaggle.com/datasets/owner/house-prices', line: 5, call: 'kagglehub.dataset_download' },
    ]);
    expect(f.cells[1]!.urls).toEqual([]);
    // seaborn's is a CSV read too (its URL): derived like any table when the network is out of reach.
    expect(f.cells[0]!.reads).toEqual([
      expect.objectContaining({
        path: 'https://raw.githubusercontent.com/mwaskom/seaborn-data/master/titanic.csv',
        kind: 'csv',
        line: 4,
        fetcher: 'seaborn.load_dataset',
      }),
    ]);
    expect(f.cells[1]!.reads).toEqual([]);
    const t = await analyzeCells(
      [
        {
          index: 0,
          source:
            "from torchvision import datasets\ntrain = datasets.MNIST(root='./mnist/', train=True, download=True)",
        },
      ],
      { python: '/usr/bin/python3', run: execaRunner },
    );
    expect(t.cells[0]!.reads).toEqual([
      expect.objectContaining({ path: './mnist/', kind: 'idx-dataset', dataset: 'MNIST' }),
    ]);
  }, 60_000);
});
