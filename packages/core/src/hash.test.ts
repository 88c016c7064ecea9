import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, hashValue, listTree, stableStringify } from './hash.js';
import { hashInstanceTree as hashTree } from './instance-tree.js';

describe('stableStringify', () => {
  it.each([
    [{ b: 1, a: { d: 2, c: [3, { z: 1, y: 2 }] } }, '{"a":{"c":[3,{"y":2,"z":1}],"d":2},"b":1}'],
    [{ a: undefined, b: null }, '{"b":null}'],
    [[3, 1, 2], '[3,1,2]'],
  ])('%j', (value, expected) => {
    expect(stableStringify(value)).toBe(expected);
  });

  it('keeps a key named __proto__ (parsed from JSON, e.g. a sheet column) as a key', () => {
    expect(stableStringify(JSON.parse('{"b":1,"__proto__":"x"}'))).toBe('{"__proto__":"x","b":1}');
  });

  it('hashValue ignores key order', () => {
    expect(hashValue({ a: 1, b: 2 })).toBe(hashValue({ b: 2, a: 1 }));
  });
});

describe('hashTree', () => {
  it('depends on names and content, not on creation order', async () => {
    const mk = async (order: string[]) => {
      const d = await mkdtemp(path.join(os.tmpdir(), 'jb-hash-'));
      await mkdir(path.join(d, 'data'));
      for (const f of order) await writeFile(path.join(d, f), f);
      return d;
    };
    const a = await mk(['x.txt', 'data/y.csv']);
    const b = await mk(['data/y.csv', 'x.txt']);
    expect(await hashTree(a)).toBe(await hashTree(b));
    await writeFile(path.join(b, 'x.txt'), 'changed');
    expect(await hashTree(a)).not.toBe(await hashTree(b));
    expect(await listTree(a)).toEqual(['data/y.csv', 'x.txt']);
  });
});

describe('compareCodePoints', () => {
  it('orders by code point, independent of locale', () => {
    expect(['b', 'B', 'a', 'Ä'].sort(compareCodePoints)).toEqual(['B', 'a', 'b', 'Ä']);
  });
});
