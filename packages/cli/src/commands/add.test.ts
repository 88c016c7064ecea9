import { describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestContext } from '../../test-helpers/test-context.js';
import { missingFileHint } from './add.js';

describe('add --help', () => {
  it('says a Kaggle source comes without outputs, names --notebook and its exit 2 cases', async () => {
    const ctx = createTestContext();
    await main(['add', '--help'], ctx);
    const help = [...ctx.stdout, ...ctx.stderr].join('\n');
    expect(help).toContain('--notebook <file.ipynb>');
    expect(help).toContain('A Kaggle kernel comes from `kaggle kernels pull` without its saved outputs');
    expect(help).toContain('a Kaggle source without --notebook has none');
    expect(help).toContain("--notebook whose code is not the collected one's");
  });
});

describe('missingFileHint: where the file a FileNotFoundError names goes', () => {
  const cwd = '(the notebooks run with raw/instances/x_1 as working directory)';
  it.each<[string, string, string]>([
    [
      'a rewritten Kaggle input',
      "[Errno 2] No such file or directory: 'data/titanic/train.csv'",
      `— reproduced.ipynb opens data/titanic/train.csv: put that file at raw/instances/x_1/data/titanic/train.csv ${cwd}`,
    ],
    [
      'a file beside the notebook',
      "[Errno 2] No such file or directory: 'train.csv'",
      `and point reproduced.ipynb at it — it opens train.csv, i.e. raw/instances/x_1/train.csv ${cwd}`,
    ],
    [
      './ normalised',
      "[Errno 2] No such file or directory: './data/a.csv'",
      `— reproduced.ipynb opens data/a.csv: put that file at raw/instances/x_1/data/a.csv ${cwd}`,
    ],
    [
      'an absolute path',
      "[Errno 2] No such file or directory: '/home/me/a.csv'",
      `${cwd} and point reproduced.ipynb at it`,
    ],
    [
      'a path leaving the folder',
      "[Errno 2] No such file or directory: '../a.csv'",
      `${cwd} and point reproduced.ipynb at it`,
    ],
    ['no path in the message', 'Unable to open file', `${cwd} and point reproduced.ipynb at it`],
  ])('%s', (_, evalue, expected) => {
    expect(missingFileHint(evalue, 'raw/instances/x_1')).toBe(expected);
  });
});
