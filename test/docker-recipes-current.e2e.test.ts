// The committed image recipes (docker/Dockerfile.<profile>) are what `image render`
// writes from the profiles and the embedded instances. A stale one is rewritten by
// the first render anyone runs, which then dirties the tree and blocks `release publish`.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runJunobench } from './run-cli.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-recipes-'));
  await cp(path.join(repoRoot, 'docker'), path.join(tmp, 'docker'), { recursive: true });
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('committed image recipes', () => {
  it.each(['debian', 'pypi'])(
    'docker/Dockerfile.%s is the current render (re-render: npx junobench image render --profile <name>, and commit it)',
    async (profile) => {
      const r = await runJunobench(['image', 'render', '--profile', profile, '--docker-dir', path.join(tmp, 'docker')]);
      expect(r.code, r.stderr).toBe(0);
      const rendered = await readFile(path.join(tmp, 'docker', `Dockerfile.${profile}`), 'utf8');
      expect(await readFile(path.join(repoRoot, 'docker', `Dockerfile.${profile}`), 'utf8')).toBe(rendered);
    },
  );
});
