import { describe, expect, it } from 'vitest';
import { encodeArray } from './materialize-inputs.js';

describe('encodeArray: numbers as NumPy reads them', () => {
  it('a .npy file: magic, version 1.0, a header padded to 64 bytes, then little-endian float64', () => {
    const b = encodeArray({ rows: 3, columns: 2, format: 'npy', delimiter: ' ' }, 's');
    expect(b.subarray(0, 8)).toEqual(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]));
    const headerLength = b.readUInt16LE(8);
    expect((10 + headerLength) % 64).toBe(0);
    expect(b.subarray(10, 10 + headerLength).toString('latin1')).toMatch(
      /^\{'descr': '<f8', 'fortran_order': False, 'shape': \(3, 2\), \} *\n$/,
    );
    expect(b.length - 10 - headerLength).toBe(3 * 2 * 8);
    const first = b.readDoubleLE(10 + headerLength);
    expect(first).toBeGreaterThanOrEqual(1);
    expect(first).toBeLessThanOrEqual(100);
  });

  it('delimited text, one row a line; the same seed gives the same bytes', () => {
    const t = encodeArray({ rows: 2, columns: 3, format: 'text', delimiter: ',' }, 's').toString();
    expect(
      t
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(',').length),
    ).toEqual([3, 3]);
    expect(encodeArray({ rows: 2, columns: 3, format: 'text', delimiter: ',' }, 's').toString()).toBe(t);
  });
});
