import { compileLinearRegExp, type ExpectedCrash } from '@junobench/core';
import { describe, expect, it } from 'vitest';
import {
  generalizeSizeNumbers,
  matchKernelArgument,
  matchNarrowerException,
  matchQuotedDataValue,
  relaxDroppedWord,
  relaxMessageWording,
} from './generalize-crash.js';
import { recoverHiddenMessage } from './recover-hidden-message.js';

describe('generalizeSizeNumbers: data-size numbers match any number on synthetic data', () => {
  it.each([
    [
      'Found input variables with inconsistent numbers of samples: [712, 179]',
      '^Found input variables with inconsistent numbers of samples: \\[[^\\]]*\\]$',
    ],
    [
      'Expected 2D array, got 1D array instead:\narray=[   0 2600].\nReshape it',
      '^Expected \\d+D array, got \\d+D array instead:\narray=\\[[^\\]]*\\]\\.\nReshape it$',
    ],
    ["None of [Index(['a'], dtype='object')] are in the [columns]", null],
    ['index 5 is out of bounds for axis 0 with size 3', '^index \\d+ is out of bounds for axis 0 with size \\d+$'],
    [
      'shapes (100,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)',
      '^shapes \\(\\d+,\\d+\\) and \\(\\d+,\\) not aligned: \\d+ \\(dim 1\\) != \\d+ \\(dim 0\\)$',
    ],
    ["'col_12' not in index", null],
  ])('%s', (evalue, pattern) => {
    const g = generalizeSizeNumbers({ ename: 'ValueError', evalue, match: 'exact', cell: 3 });
    expect(g?.evalue ?? null).toBe(pattern);
    if (g) {
      expect(g).toMatchObject({ ename: 'ValueError', cell: 3, match: 'regex' });
      expect(new RegExp(g.evalue).test(evalue)).toBe(true);
    }
  });

  it('a printed array of the data matches another array of numbers', () => {
    const g = generalizeSizeNumbers({
      ename: 'ValueError',
      evalue: 'Expected 2D array, got 1D array instead:\narray=[ 365000.  865000. ...  410000.].',
      match: 'exact',
      cell: 1,
    })!;
    expect(new RegExp(g.evalue).test('Expected 2D array, got 1D array instead:\narray=[ 2.   45.67 nan].')).toBe(true);
    expect(new RegExp(g.evalue).test('Expected 2D array, got 1D array instead:\narray=[].')).toBe(true);
  });
});

describe('recoverHiddenMessage: Colab saves "ignored" as the message', () => {
  it('takes the message from the traceback last line', () => {
    const tb = ['KeyError  Traceback (most recent call last)', "----> 1 df['x']", "KeyError: 'x'"];
    expect(
      recoverHiddenMessage({
        ename: 'KeyError',
        evalue: 'ignored',
        traceback: tb.map((l) => l),
      }),
    ).toBe("'x'");
  });
  it('leaves a real message alone, and gives up when the traceback does not show it', () => {
    expect(recoverHiddenMessage({ ename: 'KeyError', evalue: "'x'", traceback: [] })).toBeNull();
    expect(recoverHiddenMessage({ ename: 'KeyError', evalue: 'ignored', traceback: ['KeyError: ignored'] })).toBeNull();
  });
});

describe('relaxMessageWording: a message another library version words with more detail', () => {
  const expected = (evalue: string) => ({ ename: 'ValueError', evalue, match: 'exact' as const, cell: 2 });
  it.each<[string, string, string | null]>([
    [
      'Length of values does not match length of index',
      'Length of values (4) does not match length of index (8)',
      '^Length[\\s\\S]*?of[\\s\\S]*?values[\\s\\S]*?does[\\s\\S]*?not[\\s\\S]*?match[\\s\\S]*?length[\\s\\S]*?of[\\s\\S]*?index',
    ],
    ["'price'", "'Price'", null],
    [
      'Input X contains NaN.',
      'Input X contains NaN.\nKMeans does not accept missing values encoded as NaN natively.',
      'Input X contains NaN.',
    ],
    [
      'cannot copy sequence with size 6 to array axis with dimension 4',
      'setting an array element with a sequence.',
      null,
    ],
    [
      'Length of values does not match',
      'Length of values does not match length of index, and a great deal more text here',
      null,
    ],
  ])('%s / %s', (saved, observed, pattern) => {
    const r = relaxMessageWording(expected(saved), observed);
    expect(r?.evalue ?? null).toBe(pattern);
    if (r?.match === 'regex') expect(compileLinearRegExp(r.evalue).test(observed)).toBe(true);
    if (r?.match === 'prefix') expect(observed.startsWith(r.evalue)).toBe(true);
  });
});

describe('matchNarrowerException: a more specific class, the same message', () => {
  const saved = {
    ename: 'KeyError',
    evalue: "'Key length (1) was greater than MultiIndex lexsort depth (0)'",
    match: 'exact' as const,
    cell: 34,
  };
  it('takes the run class when the cell and the message are the saved ones', () => {
    expect(
      matchNarrowerException(saved, { ename: 'pandas.errors.UnsortedIndexError', evalue: saved.evalue, cell: 34 }),
    ).toEqual({ ...saved, ename: 'UnsortedIndexError' });
  });
  it('gives nothing for another cell, another message or a short one', () => {
    expect(matchNarrowerException(saved, { ename: 'UnsortedIndexError', evalue: saved.evalue, cell: 3 })).toBeNull();
    expect(matchNarrowerException(saved, { ename: 'UnsortedIndexError', evalue: "'other'", cell: 34 })).toBeNull();
    expect(
      matchNarrowerException({ ...saved, evalue: "'age'" }, { ename: 'UnsortedIndexError', evalue: "'age'", cell: 34 }),
    ).toBeNull();
  });
});

describe('matchQuotedDataValue: the value a conversion met, in synthetic data', () => {
  const crash = (evalue: string) => ({ ename: 'ValueError', evalue, match: 'exact' as const, cell: 25 });

  it('matches the same conversion on any quoted value, and nothing else', () => {
    const m = matchQuotedDataValue(
      crash("could not convert string to float: 'Semiurban'"),
      "could not convert string to float: 'Urban'",
    );
    expect(m?.match).toBe('regex');
    const re = compileLinearRegExp(m!.evalue, false, { dotAll: true });
    expect(re.test("could not convert string to float: 'Semiurban'")).toBe(true);
    expect(re.test("could not convert string to float: ' '")).toBe(true);
    expect(re.test("could not convert string to int: 'Urban'")).toBe(false);
    expect(re.test("could not convert string to float: 'a'\nmore")).toBe(false);
    expect(
      matchQuotedDataValue(
        crash("invalid literal for int() with base 10: 'x'"),
        "invalid literal for int() with base 10: '3.5'",
      )?.evalue,
    ).toBe('^invalid literal for int\\(\\) with base 10: (?:\'[^\'\\n]*\'|"[^"\\n]*")$');
  });

  it('not for another message, the same value, or a message of another kind', () => {
    expect(
      matchQuotedDataValue(crash("could not convert string to float: 'a'"), "could not convert string to int: 'b'"),
    ).toBeNull();
    expect(
      matchQuotedDataValue(crash("could not convert string to float: 'a'"), "could not convert string to float: 'a'"),
    ).toBeNull();
    expect(matchQuotedDataValue(crash("'Age'"), "'Sex'")).toBeNull();
  });
});

describe("matchKernelArgument: sys.argv is the kernel's command line, which the front end chose", () => {
  const crash = (evalue: string): ExpectedCrash => ({ ename: 'ValueError', evalue, cell: 0, match: 'exact' });
  const here = "could not convert string to float: '/run/junobench/runner-oMn0mq/kernel-wjtr_iis.json'";

  it("matches another front end's argument where the saved message quotes one, and only a kernel argument", () => {
    // VS Code starts kernels with --stdin=… --control=… --f=<file>; Jupyter with -f <file>.
    const m = matchKernelArgument(crash("could not convert string to float: '--stdin=9013'"), here);
    expect(m?.match).toBe('regex');
    const re = compileLinearRegExp(m!.evalue, false, { dotAll: true });
    for (const arg of [
      '--stdin=9013',
      '-f',
      '/root/.local/share/jupyter/runtime/kernel-3f2a.json',
      here.split(': ')[1]!.slice(1, -1),
    ])
      expect(re.test(`could not convert string to float: '${arg}'`), arg).toBe(true);
    expect(re.test("could not convert string to float: 'abc'")).toBe(false);
    expect(re.test("could not convert string to int: '-f'")).toBe(false);
    // Other quoted text stays exact; the quote character too.
    const open = matchKernelArgument(
      { ...crash("[Errno 2] No such file or directory: '-f'"), ename: 'FileNotFoundError' },
      "[Errno 2] No such file or directory: '/run/junobench/runner-x/kernel-y.json'",
    );
    expect(open?.evalue).toMatch(/^\^\\\[Errno 2\\\] No such file or directory: '\(\?:-f\|/);
  });

  it('not when the saved message quotes no kernel argument, the run quotes something else, or nothing changed', () => {
    expect(matchKernelArgument(crash("could not convert string to float: 'abc'"), here)).toBeNull();
    expect(
      matchKernelArgument(crash("could not convert string to float: '-f'"), "could not convert string to float: 'x'"),
    ).toBeNull();
    expect(
      matchKernelArgument(crash("could not convert string to float: '-f'"), "could not convert string to float: '-f'"),
    ).toBeNull();
    expect(
      matchKernelArgument(
        crash("could not convert string to float: '-f'"),
        "invalid literal for int() with base 10: '-f'",
      ),
    ).toBeNull();
  });
});

describe('relaxDroppedWord', () => {
  const crash = (evalue: string): ExpectedCrash => ({ ename: 'RuntimeError', evalue, cell: 3, match: 'exact' });
  it("matches the saved message and the run's, one plain word shorter; never a negation, a number or a name", () => {
    const saved = 'norm(): input dtype should be either floating point or complex dtypes. Got Long instead.';
    const seen = 'norm(): input dtype should be either floating point or complex. Got Long instead.';
    const r = relaxDroppedWord(crash(saved), seen)!;
    expect(r.match).toBe('regex');
    expect(compileLinearRegExp(r.evalue).test(saved)).toBe(true);
    expect(compileLinearRegExp(r.evalue).test(seen)).toBe(true);
    expect(
      compileLinearRegExp(r.evalue).test(
        'norm(): input dtype should be either floating point or complex. Got Int instead.',
      ),
    ).toBe(false);
    expect(
      relaxDroppedWord(crash('the input is not a valid frame here'), 'the input is a valid frame here'),
    ).toBeNull();
    expect(
      relaxDroppedWord(crash("column 'a' is missing from the frame"), 'column is missing from the frame'),
    ).toBeNull();
    expect(
      relaxDroppedWord(crash('expected 3 columns in the frame here'), 'expected columns in the frame here'),
    ).toBeNull();
    expect(relaxDroppedWord(crash('too short a message'), 'too short message')).toBeNull();
    const last = relaxDroppedWord(
      crash('the model was fitted on other input columns'),
      'the model was fitted on other input',
    )!;
    expect(compileLinearRegExp(last.evalue).test('the model was fitted on other input')).toBe(true);
    expect(compileLinearRegExp(last.evalue).test('the model was fitted on other input columns')).toBe(true);
  });
});
