import { describe, expect, it } from 'vitest';
import { formatBytes } from './format-bytes.js';

describe('formatBytes', () => {
  it.each([
    [0, {}, '0 bytes'],
    [1023, {}, '1023 bytes'],
    [1229, {}, '1.2 KiB'],
    [2.4 * 2 ** 30, {}, '2.4 GiB'],
    [167 * 2 ** 20 + 5, {}, '167 MiB'],
    [16 * 2 ** 30, {}, '16 GiB'],
    [2 ** 50, {}, '1024 TiB'],
    [80 * 2 ** 20 + 1, { decimals: 1 }, '80.0 MiB'],
    [1536, { decimals: 1 }, '1.5 KiB'],
    [64 * 2 ** 20, { decimals: 1 }, '64.0 MiB'],
    [3 * 2 ** 30, { decimals: 1 }, '3.0 GiB'],
    [999, { units: 'si' }, '999 B'],
    [50_000_000, { units: 'si' }, '50.0 MB'],
    [1_234_567_890, { units: 'si' }, '1.2 GB'],
    [1023, { units: 'jedec' }, '1023 B'],
    [12_595, { units: 'jedec' }, '12.3 KB'],
    [3 * 2 ** 20, { units: 'jedec' }, '3.0 MB'],
  ] as const)('%d bytes with %o → %s', (n, options, text) => {
    expect(formatBytes(n, options)).toBe(text);
  });
});
