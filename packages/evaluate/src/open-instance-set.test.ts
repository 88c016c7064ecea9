// The one rule for which instances the benchmark is, on a raw tree: drafts and deprecated instances left out (drafts
// with --include-drafts), named instances checked against the set, and an identity that follows the files.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInstanceSet, openInstanceSet } from './open-instance-set.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let root: string;
let instances: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'jb-set-'));
  instances = path.join(root, 'raw', 'instances');
  for (const id of ['NBspecific_2', 'numpy_1', 'pandas_1'])
    await cp(path.join(repoRoot, 'raw/instances', id), path.join(instances, id), { recursive: true });
  const file = path.join(instances, 'pandas_1', 'instance.json');
  await writeFile(file, JSON.stringify({ ...JSON.parse(await readFile(file, 'utf8')), status: 'draft' }));
  await writeFile(
    path.join(root, 'raw', 'deprecated.json'),
    JSON.stringify({ instances: [{ id: 'numpy_1', deprecatedIn: '0.2.0', reason: 'the dataset was withdrawn' }] }),
  );
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('openInstanceSet on the raw tree', () => {
  it('leaves out deprecated instances and drafts, and says so', async () => {
    const set = await openInstanceSet({ instancesDir: instances });
    expect(set.ids).toEqual(['NBspecific_2']);
    expect(set.identity).toMatchObject({ source: 'raw', instances: 1, ids: ['NBspecific_2'], drafts: false });
    expect(set.leftOut).toEqual([
      { id: 'numpy_1', why: 'deprecated', detail: 'deprecated in 0.2.0: the dataset was withdrawn' },
      { id: 'pandas_1', why: 'draft' },
    ]);
    expect(describeInstanceSet(set, 'raw/instances')).toMatch(
      /^benchmark: raw tree raw\/instances \(tree sha256 [0-9a-f]{64}, 1 instance; left out: 1 deprecated, 1 draft\)$/,
    );
  }, 60_000);

  it('takes the drafts with includeDrafts, never the deprecated ones; the identity changes with the set', async () => {
    const without = await openInstanceSet({ instancesDir: instances });
    const set = await openInstanceSet({ instancesDir: instances, includeDrafts: true });
    expect(set.ids).toEqual(['NBspecific_2', 'pandas_1']);
    expect(set.identity.drafts).toBe(true);
    expect(set.identity.treeSha256).not.toBe(without.identity.treeSha256);
  }, 60_000);

  it('the identity is a hash of the files: the same tree, the same hash; one byte changed, another', async () => {
    const a = await openInstanceSet({ instancesDir: instances });
    expect((await openInstanceSet({ instancesDir: instances })).identity).toEqual(a.identity);
    const nb = path.join(instances, 'NBspecific_2', 'fixed.ipynb');
    const text = await readFile(nb, 'utf8');
    await writeFile(nb, `${text}\n`);
    try {
      expect((await openInstanceSet({ instancesDir: instances })).identity.treeSha256).not.toBe(a.identity.treeSha256);
    } finally {
      await writeFile(nb, text);
    }
  });

  it.each([
    ['pandas_1', /pandas_1 is a draft[\s\S]*--include-drafts/],
    ['numpy_1', /numpy_1 is deprecated in 0\.2\.0: the dataset was withdrawn/],
    ['nope', /no instance named "nope"/],
  ])('refuses a named instance outside the set: %s', async (id, message) => {
    const err = await openInstanceSet({ instancesDir: instances, ids: [id] }).catch((e: unknown) => e);
    expect(`${(err as Error).message}\n${(err as { hint?: string }).hint ?? ''}`).toMatch(message);
  });

  it('an empty set is an error that says what was left out, not "everything"', async () => {
    await expect(
      openInstanceSet({ instancesDir: instances, deprecatedFile: path.join(root, 'none.json'), ids: [] }),
    ).resolves.toMatchObject({ ids: ['NBspecific_2', 'numpy_1'] });
    const only = path.join(root, 'only-drafts');
    await cp(path.join(instances, 'pandas_1'), path.join(only, 'pandas_1'), { recursive: true });
    await expect(openInstanceSet({ instancesDir: only })).rejects.toMatchObject({
      code: 'E_INPUT_EMPTY',
      hint: expect.stringMatching(/--include-drafts/),
    });
  });

  it('--include-drafts with a release is a usage error', async () => {
    await expect(
      openInstanceSet({ instancesDir: instances, release: root, includeDrafts: true }),
    ).rejects.toMatchObject({
      code: 'E_USAGE',
    });
  });
});
