import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextDeprecationVersion, planDeprecation, readDeprecated, writeDeprecated } from './deprecate-instance.js';

const known = new Set(['numpy_1', 'pandas_1', 'torch_2']);

describe('planDeprecation', () => {
  it('adds the instance, sorted by id', () => {
    const list = planDeprecation(
      { instances: [{ id: 'torch_2', deprecatedIn: '0.2.0', reason: 'duplicate' }] },
      { id: 'numpy_1', reason: ' data withdrawn ', version: '0.3.0', known },
    );
    expect(list).toEqual({
      instances: [
        { id: 'numpy_1', deprecatedIn: '0.3.0', reason: 'data withdrawn' },
        { id: 'torch_2', deprecatedIn: '0.2.0', reason: 'duplicate' },
      ],
    });
  });
  it.each([
    [
      'an id already deprecated (ids are never reused)',
      { id: 'torch_2', reason: 'x', version: '0.3.0' },
      /already deprecated \(in 0\.2\.0: duplicate\)/,
    ],
    ['an unknown id', { id: 'pandas_9', reason: 'x', version: '0.3.0' }, /no instance named pandas_9/],
    ['an id leaving the folder', { id: '../x', reason: 'x', version: '0.3.0' }, /not a valid instance id/],
    ['a version that is not semver', { id: 'numpy_1', reason: 'x', version: 'v1' }, /not a semantic version/],
    ['an empty reason', { id: 'numpy_1', reason: '  ', version: '0.3.0' }, /reason is empty/],
    [
      'a version that already released it (0.1.0 shipped numpy_1)',
      {
        id: 'numpy_1',
        reason: 'x',
        version: '0.1.0',
        released: [
          { version: '0.1.0', ids: new Set(['numpy_1']) },
          { version: '0.2.0', ids: new Set(['pandas_1']) },
        ],
      },
      /numpy_1 is in release 0\.1\.0, so it cannot be deprecated in 0\.1\.0/,
    ],
    [
      'a version older than one that released it',
      { id: 'numpy_1', reason: 'x', version: '0.1.5', released: [{ version: '0.2.0', ids: new Set(['numpy_1']) }] },
      /is in release 0\.2\.0/,
    ],
  ])('refuses %s', (_n, req, message) => {
    expect(() =>
      planDeprecation(
        { instances: [{ id: 'torch_2', deprecatedIn: '0.2.0', reason: 'duplicate' }] },
        { ...req, known },
      ),
    ).toThrow(message);
  });
  it('accepts a version after every release that holds it', () => {
    const list = planDeprecation(
      { instances: [] },
      {
        id: 'numpy_1',
        reason: 'x',
        version: '0.2.0',
        known,
        released: [
          { version: '0.1.0', ids: new Set(['numpy_1']) },
          { version: '0.3.0', ids: new Set(['pandas_1']) },
        ],
      },
    );
    expect(list.instances).toEqual([{ id: 'numpy_1', deprecatedIn: '0.2.0', reason: 'x' }]);
  });
  it('defaults to the next minor version after the latest release', () => {
    expect(nextDeprecationVersion([])).toBe('0.1.0');
    expect(nextDeprecationVersion(['0.1.0', '0.10.0', '0.2.1', 'junk'])).toBe('0.11.0');
  });
});

describe('raw/deprecated.json', () => {
  it('round-trips in the exact format { instances: [ { id, deprecatedIn, reason } ] }; a missing file is an empty list', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'junobench-dep-'));
    try {
      const file = path.join(dir, 'deprecated.json');
      expect(await readDeprecated(file)).toEqual({ instances: [] });
      await writeDeprecated(file, { instances: [{ id: 'numpy_1', deprecatedIn: '0.2.0', reason: 'r' }] });
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
        instances: [{ deprecatedIn: '0.2.0', id: 'numpy_1', reason: 'r' }],
      });
      expect(await readDeprecated(file)).toEqual({
        instances: [{ id: 'numpy_1', deprecatedIn: '0.2.0', reason: 'r' }],
      });
      await writeFile(file, JSON.stringify({ instances: [{ id: 'numpy_1', reason: 'r' }] }));
      await expect(readDeprecated(file)).rejects.toThrow(/deprecatedIn/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
