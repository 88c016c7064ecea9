import { describe, expect, it } from 'vitest';
import { diffLines, findReorderedPairs, planCellDiff, splitLines, type DiffCell } from './diff-cells.js';

const code = (source: string): DiffCell => ({ kind: 'code', source });
const md = (source: string): DiffCell => ({ kind: 'markdown', source });
const statuses = (rows: ReturnType<typeof planCellDiff>) =>
  rows.map((r) => `${r.status}:${r.left ?? '-'}/${r.right ?? '-'}`);

describe('planCellDiff', () => {
  it.each([
    [
      'identical notebooks',
      [md('# t'), code('a'), code('b')],
      [md('# t'), code('a'), code('b')],
      ['same:0/0', 'same:1/1', 'same:2/2'],
    ],
    [
      'one cell changed',
      [code('a'), code('b'), code('c')],
      [code('a'), code('B'), code('c')],
      ['same:0/0', 'changed:1/1', 'same:2/2'],
    ],
    [
      'a cell added in the fix',
      [code('a'), code('c')],
      [code('a'), code('b'), code('c')],
      ['same:0/0', 'added:-/1', 'same:1/2'],
    ],
    [
      'a cell removed in the fix',
      [code('a'), code('b'), code('c')],
      [code('a'), code('c')],
      ['same:0/0', 'removed:1/-', 'same:2/1'],
    ],
    [
      'changed and added at the end',
      [code('a'), code('b')],
      [code('a'), code('b2'), code('c')],
      ['same:0/0', 'changed:1/1', 'added:-/2'],
    ],
    [
      'a markdown cell is never paired with a code cell',
      [code('a'), md('x')],
      [code('a'), code('y')],
      ['same:0/0', 'removed:1/-', 'added:-/1'],
    ],
    [
      'within a gap, the first cells of one kind pair up',
      [code('a'), md('m1'), code('c1'), code('z')],
      [code('a'), code('c2'), md('m2'), code('z')],
      ['same:0/0', 'added:-/1', 'changed:1/2', 'removed:2/-', 'same:3/3'],
    ],
    [
      'moved cell: one side of it is kept, the other is added/removed',
      [code('a'), code('b'), code('c')],
      [code('b'), code('a'), code('c')],
      ['removed:0/-', 'same:1/0', 'added:-/1', 'same:2/2'],
    ],
    [
      'trailing whitespace and final newlines are not changes',
      [code('a = 1  \n'), code('b\n\n')],
      [code('a = 1'), code('b')],
      ['same:0/0', 'same:1/1'],
    ],
    ['empty notebooks', [], [], []],
    ['only the fixed notebook has cells', [], [code('a')], ['added:-/0']],
  ])('%s', (_name, left, right, expected) => {
    expect(statuses(planCellDiff(left, right))).toEqual(expected);
  });

  it('covers every cell of both notebooks exactly once, in order', () => {
    const left = ['a', 'b', 'c', 'd', 'e', 'f'].map(code);
    const right = ['a', 'x', 'c', 'y', 'z', 'f', 'g'].map(code);
    const rows = planCellDiff(left, right);
    expect(rows.flatMap((r) => (r.left === undefined ? [] : [r.left]))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(rows.flatMap((r) => (r.right === undefined ? [] : [r.right]))).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('diffLines', () => {
  it.each([
    [
      'same text',
      'a\nb',
      'a\nb',
      [
        ['same', 'a'],
        ['same', 'b'],
      ],
    ],
    [
      'a line added',
      'a\nc',
      'a\nb\nc',
      [
        ['same', 'a'],
        ['ins', 'b'],
        ['same', 'c'],
      ],
    ],
    [
      'a line removed',
      'a\nb\nc',
      'a\nc',
      [
        ['same', 'a'],
        ['del', 'b'],
        ['same', 'c'],
      ],
    ],
    [
      'a line replaced',
      'x = f(a)\ny',
      'x = f(a, b)\ny',
      [
        ['del', 'x = f(a)'],
        ['ins', 'x = f(a, b)'],
        ['same', 'y'],
      ],
    ],
    ['from empty', '', 'a', [['ins', 'a']]],
    ['to empty', 'a\n', '', [['del', 'a']]],
    [
      'CRLF is a line break',
      'a\r\nb',
      'a\nb',
      [
        ['same', 'a'],
        ['same', 'b'],
      ],
    ],
  ])('%s', (_name, a, b, expected) => {
    expect(diffLines(a, b).map((o) => [o.op, o.text])).toEqual(expected);
  });

  it('rebuilds both texts from its operations', () => {
    const a = Array.from({ length: 60 }, (_, i) => `line ${i % 7} ${i % 3}`).join('\n');
    const b = Array.from({ length: 55 }, (_, i) => `line ${i % 5} ${i % 3}`).join('\n');
    const ops = diffLines(a, b);
    expect(ops.filter((o) => o.op !== 'ins').map((o) => o.text)).toEqual(splitLines(a));
    expect(ops.filter((o) => o.op !== 'del').map((o) => o.text)).toEqual(splitLines(b));
  });

  it('replaces huge cells whole instead of building a quadratic table', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}`).join('\n');
    const ops = diffLines(a, b);
    expect(ops.filter((o) => o.op === 'del')).toHaveLength(3000);
    expect(ops.filter((o) => o.op === 'ins')).toHaveLength(3000);
  });
});

describe('findReorderedPairs', () => {
  const cells = (n: number) => Array.from({ length: n }, (_, i) => code(`c${i}`));
  const run = (order: number[]) => new Map(order.map((cell, pos) => [cell, pos]));

  it.each([
    ['same order', [0, 1, 2, 3], [0, 1, 2, 3], []],
    ['two cells swapped', [0, 2, 1, 3], [0, 1, 2, 3], [1, 2]],
    ['a cell never run on one side', [0, 1, 2], [0, 1, 2, 3], [3]],
    ['never run on both sides is no change', [0, 1], [0, 1], []],
  ])('%s', (_name, left, right, expected) => {
    const pairs = planCellDiff(cells(4), cells(4));
    expect([...findReorderedPairs(pairs, run(left), run(right))].sort()).toEqual(expected);
  });

  it('does not call every later cell moved when the fix adds a cell', () => {
    const pairs = planCellDiff([code('a'), code('b'), code('c')], [code('a'), code('new'), code('b'), code('c')]);
    expect(findReorderedPairs(pairs, run([0, 1, 2]), run([0, 1, 2, 3])).size).toBe(0);
  });
});
