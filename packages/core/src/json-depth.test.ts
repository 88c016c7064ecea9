import { describe, expect, it } from 'vitest';
import { findTooDeep } from './json-depth.js';

function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('findTooDeep', () => {
  it('passes documents within the limit, arrays and objects alike', () => {
    expect(findTooDeep({ cells: [{ outputs: [{ data: { 'text/plain': ['x'] } }] }] }, 10)).toBeUndefined();
    expect(findTooDeep(nested(10), 10)).toBeUndefined();
    expect(findTooDeep('text', 0)).toBeUndefined();
  });

  it('names where a document nests too deep, cutting a long path', () => {
    expect(findTooDeep({ metadata: nested(3) }, 3)).toEqual({ path: 'metadata.a.a', depth: 4 });
    expect(findTooDeep({ cells: [[[1]]] }, 2)).toEqual({ path: 'cells.0', depth: 3 });
    expect(findTooDeep(nested(50), 20)!.path).toBe('a.a.a.a.a.a.….a');
  });

  it('walks a document nested 200,000 levels without overflowing its own stack', () => {
    expect(findTooDeep({ metadata: nested(200_000) })).toMatchObject({ depth: 101 });
  });
});
