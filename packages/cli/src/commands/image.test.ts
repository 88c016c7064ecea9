import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestContext } from '../../test-helpers/test-context.js';
import { planRecipeDir } from './image.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A project folder with the real profiles and one instance needing these modules. */
async function project(requires: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'junobench-cli-image-'));
  made.push(dir);
  await cp(path.join(ROOT, 'docker/profiles'), path.join(dir, 'docker/profiles'), { recursive: true });
  const inst = {
    id: 'numpy_1',
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'ValueError', evalue: 'operands could not be broadcast together', match: 'prefix', cell: 1 },
    execution: { order: 'file' },
    requires,
    labels: {
      library: 'numpy',
      crashType: 'unsupported broadcast',
      rootCause: 'implementation error',
      pipelineStage: 'data preparation',
    },
  };
  await mkdir(path.join(dir, 'raw/instances/numpy_1'), { recursive: true });
  await writeFile(path.join(dir, 'raw/instances/numpy_1/instance.json'), JSON.stringify(inst));
  return dir;
}

describe('junobench image render', () => {
  it('writes docker/Dockerfile.pypi with the pins and prints the content-hash tag', async () => {
    const dir = await project(['numpy', 'sklearn', 'tensorflow']);
    const ctx = createTestContext(dir);
    expect(await main(['image', 'render', '--profile', 'pypi'], ctx)).toBe(0);
    expect(ctx.stdout[0]).toMatch(/^rendered docker\/Dockerfile\.pypi \(tag junobench\/benchmark:pypi-[0-9a-f]{12}\)$/);
    const text = await readFile(path.join(dir, 'docker/Dockerfile.pypi'), 'utf8');
    for (const pin of ["'numpy==1.26.4'", "'scikit-learn==1.2.2'", "'tensorflow==2.17.0'"]) expect(text).toContain(pin);
  });

  it('says which modules the debian profile leaves out and why', async () => {
    const dir = await project(['numpy', 'tensorflow']);
    const ctx = createTestContext(dir);
    expect(await main(['image', 'render'], ctx)).toBe(0);
    expect(ctx.stdout.join('\n')).toContain('left out tensorflow: not packaged in Debian bookworm (numpy_1)');
  });

  it('a module without a package: exit 2, naming the module, the instance and the profile file', async () => {
    const dir = await project(['numpy', 'polars']);
    const ctx = createTestContext(dir);
    expect(await main(['image', 'render', '--profile', 'debian'], ctx)).toBe(2);
    const err = ctx.stderr.join('\n');
    expect(err).toContain(
      'error [E_PROFILE]: docker/profiles/debian.json, field "modules": profile "debian" has no package for module polars (needed by numpy_1)',
    );
    expect(err).toContain('hint: add e.g. "polars"');
  });

  it('an unknown profile: exit 2 with the known ones', async () => {
    const dir = await project(['numpy']);
    const ctx = createTestContext(dir);
    expect(await main(['image', 'render', '--profile', 'conda'], ctx)).toBe(2);
    expect(ctx.stderr.join('\n')).toContain('known profiles: debian, pypi');
  });
});

describe('junobench image build', () => {
  it('no engine at DOCKER_HOST: exit 3 with the setup command', async () => {
    const dir = await project(['numpy']);
    const ctx = createTestContext(dir);
    ctx.env = { ...ctx.env, DOCKER_HOST: `unix://${path.join(dir, 'no-engine.sock')}` };
    expect(await main(['image', 'build'], ctx)).toBe(3);
    expect(ctx.stderr.join('\n')).toMatch(
      /no container engine at DOCKER_HOST=unix:\/\/.*no-engine\.sock[\s\S]*sh tools\/setup-engine\.sh/,
    );
  });
});

describe('planRecipeDir (image build)', () => {
  it.each<[string, string[], string]>([
    ['the project build: docker/', [], 'docker'],
    ['another record (other instances): beside it', ['record'], 'out/x'],
    ['--docker-dir given: there', ['record', 'dockerDir'], 'mine'],
  ])('%s', (_n, given, dir) => {
    const dockerDir = given.includes('dockerDir') ? 'mine' : 'docker';
    expect(planRecipeDir({ dockerDir, record: 'out/x/image.json' }, (o) => given.includes(o))).toBe(dir);
  });
});
