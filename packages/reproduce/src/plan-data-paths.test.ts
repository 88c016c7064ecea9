import { describe, expect, it } from 'vitest';
import { applyLiteralRewrites, mapDataPath, planLiteralRewrites, pointFetcherAt } from './plan-data-paths.js';

describe('mapDataPath: every input the draft reads lives under data/', () => {
  it.each([
    ['../data/train.csv', 'data/train.csv'],
    ['../../input/titanic/train.csv', 'data/titanic/train.csv'],
    ['/kaggle/input/house-prices/train.csv', 'data/house-prices/train.csv'],
    ['/home/alice/projects/churn/data/raw/churn.csv', 'data/churn.csv'],
    ['/Users/bob/Desktop/sales.xlsx', 'data/sales.xlsx'],
    ['C:\\Users\\bob\\Documents\\loans.csv', 'data/loans.csv'],
    ['~/datasets/iris.csv', 'data/iris.csv'],
    ['/content/drive/MyDrive/Colab Notebooks/heart.csv', 'data/heart.csv'],
    ['train.csv', 'data/train.csv'],
    ['data/train.csv', 'data/train.csv'],
    ['./data/images/', 'data/images/'],
    ['https://example.org/x.csv', null],
  ])('%s → %s', (from, to) => {
    expect(mapDataPath(from)).toBe(to);
  });
});

describe('planLiteralRewrites and applyLiteralRewrites', () => {
  it('rewrites a whole path literal and a folder constant joined to a file name', () => {
    const rewrites = planLiteralRewrites(
      ['../input/titanic/', 'train.csv', '/home/u/x.csv'],
      ['../input/titanic/train.csv', '/home/u/x.csv'],
    );
    expect(rewrites).toEqual([
      { from: '../input/titanic/', to: 'data/titanic/' },
      { from: '/home/u/x.csv', to: 'data/x.csv' },
    ]);
    const src = "PATH = '../input/titanic/'\ndf = pd.read_csv(PATH + 'train.csv')\nb = pd.read_csv(\"/home/u/x.csv\")";
    const { source, applied } = applyLiteralRewrites(src, rewrites);
    expect(source).toBe(
      "PATH = 'data/titanic/'\ndf = pd.read_csv(PATH + 'train.csv')\nb = pd.read_csv(\"data/x.csv\")",
    );
    expect(applied).toHaveLength(2);
  });

  it('follows a file found elsewhere in data/ and a Windows path written with doubled backslashes', () => {
    const chosen = new Map([['C:\\Users\\b\\loans.csv', 'data/bank/loans.csv']]);
    const rewrites = planLiteralRewrites(['C:\\Users\\b\\loans.csv'], ['C:\\Users\\b\\loans.csv'], chosen);
    const { source } = applyLiteralRewrites("pd.read_csv('C:\\\\Users\\\\b\\\\loans.csv')", rewrites);
    expect(source).toBe("pd.read_csv('data/bank/loans.csv')");
  });
});

describe('pointFetcherAt: a library download pointed at the draft copy', () => {
  it("gives seaborn's load_dataset data_home on the call's line, keeping its arguments and the rest of the line", () => {
    const src = "import seaborn as sns\ntips = sns.load_dataset('tips', sep=',')  # (a comment)\ntips.head()";
    expect(pointFetcherAt(src, 2, 'data')).toEqual({
      source:
        "import seaborn as sns\ntips = sns.load_dataset('tips', sep=',', data_home='data')  # (a comment)\ntips.head()",
      from: "sns.load_dataset('tips', sep=',')",
      to: "sns.load_dataset('tips', sep=',', data_home='data')",
    });
    expect(pointFetcherAt("x = seaborn.load_dataset(\n  'tips')", 1, 'data')).toBeUndefined();
    expect(pointFetcherAt("x = sns.load_dataset('ti)ps',)", 1, 'data')?.to).toBe(
      "sns.load_dataset('ti)ps', data_home='data')",
    );
    expect(pointFetcherAt('x = 1', 1, 'data')).toBeUndefined();
    expect(pointFetcherAt('x = 1', 5, 'data')).toBeUndefined();
  });
});
