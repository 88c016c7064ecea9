import { describe, expect, it } from 'vitest';
import { findEditedCrashLine } from './find-edited-crash-line.js';

const header = '---------------------------------------------------------------------------';
const ipython7 = (body: string) => [
  `${header}\nAttributeError                            Traceback (most recent call last)`,
  `<ipython-input-9-3f2a1b0c4d5e> in <module>\n      2 train_x = scaler.transform(train_x)\n      3 \n----> 4 train_x.head()\n`,
  body,
  "AttributeError: 'numpy.ndarray' object has no attribute 'head'",
];

describe('findEditedCrashLine: the saved crashing line the cell no longer holds', () => {
  it('names the line IPython marked when the source lacks it (IPython 7 and 8 frames)', () => {
    expect(findEditedCrashLine(ipython7(''), 'train_x = scaler.transform(train_x)\ntrain_x.describe()')).toEqual({
      line: 4,
      text: 'train_x.head()',
    });
    const ipython8 = [
      `${header}\nKeyError                                  Traceback (most recent call last)`,
      "Cell In[12], line 2\n      1 df = load()\n----> 2 df['price'].mean()\n",
      'File /usr/lib/python3/dist-packages/pandas/core/frame.py:3761, in DataFrame.__getitem__(self, key)\n-> 3761 indexer = self.columns.get_loc(key)\n',
    ];
    expect(findEditedCrashLine(ipython8, "df = load()\ndf['cost'].mean()")).toEqual({
      line: 2,
      text: "df['price'].mean()",
    });
  });

  it('finds nothing when the source still holds the line, spacing aside, or split over lines', () => {
    expect(findEditedCrashLine(ipython7(''), 'x = 1\n\ntrain_x.head( )')).toBeUndefined();
    const split = [header, '<ipython-input-3-aa> in <module>\n----> 1 model.fit(X,\n      2           y)\n'];
    expect(findEditedCrashLine(split, 'model.fit(X,\n          y)')).toBeUndefined();
  });

  it("ignores a traceback whose first marked frame is not the cell's (a library's module-level code)", () => {
    const lib = [header, '/usr/lib/python3/dist-packages/foo/__init__.py in <module>\n----> 3 import bar\n'];
    expect(findEditedCrashLine(lib, 'import foo')).toBeUndefined();
    expect(findEditedCrashLine([], 'x')).toBeUndefined();
  });
});
