import { describe, expect, it } from 'vitest';
import { describeInputEdits } from './describe-input-edits.js';
import type { DataNeed } from './plan-data-needs.js';

const need = (over: Partial<DataNeed>): DataNeed => ({
  read: 'x.csv',
  file: 'data/x.csv',
  cells: [0],
  present: false,
  ...over,
});

describe('describeInputEdits: the inputs a draft has only as stand-ins, or lacks, by the original cell and path', () => {
  const context = {
    originalCell: (ci: number) => [2, 5, 7][ci]!,
    rewrites: ['/kaggle/input/titanic → data/titanic'],
    remark: (p: string) => (p.startsWith('/kaggle/') ? 'a Kaggle input' : undefined),
  };

  it('names the cell and the path as the original wrote them, and where the file is', () => {
    expect(
      describeInputEdits(
        [
          {
            need: need({ read: 'data/titanic/train.csv', file: 'data/titanic/train.csv', cells: [1] }),
            status: 'synthetic',
            reason: 'not found',
          },
          {
            need: need({
              read: 'm.pkl',
              file: 'data/m.pkl',
              cells: [0, 2],
              underivable: 'a file of type .pkl cannot be derived from the code',
            }),
            status: 'missing',
          },
          { need: need({ present: true }), status: 'present' },
          { need: need({ url: 'https://x.org/x.csv' }), status: 'downloaded' },
          { need: need({ absentInCrash: true }), status: 'missing' },
        ],
        context,
      ),
    ).toEqual([
      'code cell 5 of the original reads /kaggle/input/titanic/train.csv, a Kaggle input: no such file was given or collected, so a synthetic stand-in derived from the code is in data/titanic/train.csv — put the real file there to reproduce on the real data',
      'code cells 2, 7 of the original read m.pkl: the draft lacks it (a file of type .pkl cannot be derived from the code) — put it at data/m.pkl, or give it with --data',
    ]);
  });

  it('says why a download did not happen', () => {
    const [w] = describeInputEdits(
      [{ need: need({ url: 'https://x.org/x.csv' }), status: 'synthetic', reason: 'offline: not downloaded' }],
      context,
    );
    expect(w).toContain('no such file was given or collected (offline: not downloaded), so a synthetic stand-in');
  });
});
