// The IDX files are read back by Debian's torchvision (tools/setup-python.sh), offline.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execaRunner } from '@junobench/runtime';
import { describe, expect, it } from 'vitest';
import { encodeArray, materializeInputs } from './materialize-inputs.js';

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

describe('materializeInputs: torchvision MNIST-like datasets, as IDX files', () => {
  it('torchvision reads them under the root the code names (data/ itself), download=True never reaching for the network', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-idx-'));
    try {
      const [r] = await materializeInputs(
        [
          {
            read: 'data',
            file: 'data',
            cells: [0],
            present: false,
            derive: { type: 'idx', dataset: 'FashionMNIST', train: 30, test: 10 },
          },
        ],
        dir,
        { seed: 's', writeTable: async () => undefined },
      );
      expect(r).toMatchObject({ status: 'synthetic' });
      expect(r!.derived![0]).toMatch(/FashionMNIST.*30 training and 10 test images/);
      const code = [
        'import os, socket, sys, torchvision',
        'os.chdir(sys.argv[1])',
        'socket.socket = None  # any download would fail loudly',
        "tr = torchvision.datasets.FashionMNIST(root='data', train=True, download=True)",
        "te = torchvision.datasets.FashionMNIST(root='data', train=False, download=True)",
        'print(len(tr), tuple(tr.data.shape), tr.targets[:3].tolist(), len(te), tr[0][0].size)',
      ].join('\n');
      const out = await execaRunner('/usr/bin/python3', ['-c', code, dir], { timeoutMs: 60_000 });
      expect(out.stderr).toBe('');
      expect(out.stdout.trim()).toBe('30 (30, 28, 28) [0, 1, 2] 10 (28, 28)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
