import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINER_LAYOUT } from '@junobench/runtime';
import { planImageRecipe, normalizeDistribution, requirementName } from './plan-image-recipe.js';
import { hashImageContent, imageTagFor, renderDockerfile } from './render-dockerfile.js';
import { readProfile } from './read-profile.js';
import { readInstanceRequirements } from './read-instance-requirements.js';
import { renderImage } from './build-image.js';
import { PYTHON_STDLIB_MODULES } from './python-stdlib.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DOCKER_DIR = path.join(ROOT, 'docker');

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-render-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('the shipped profiles', () => {
  it.each(['debian', 'pypi'])(
    '%s validates against schemas/image-profile.schema.json and maps no module twice',
    async (name) => {
      const { profile } = await readProfile(name, { dockerDir: DOCKER_DIR });
      expect(profile.name).toBe(name);
      const both = Object.keys(profile.modules).filter((m) => profile.unavailable?.[m] !== undefined);
      expect(both).toEqual([]);
    },
  );

  it('debian leaves TensorFlow out with its reason; pypi pins it as the published requirements do', async () => {
    const debian = (await readProfile('debian', { dockerDir: DOCKER_DIR })).profile;
    const pypi = (await readProfile('pypi', { dockerDir: DOCKER_DIR })).profile;
    expect(debian.unavailable?.tensorflow).toMatch(/not packaged in Debian bookworm/);
    expect(debian.modules.sklearn).toBe('python3-sklearn');
    expect(debian.modules.PIL).toBe('python3-pil');
    expect(debian.modules.cv2).toBe('python3-opencv');
    expect(pypi.modules.tensorflow).toBe('tensorflow==2.17.0');
    expect(pypi.modules.sklearn).toBe('scikit-learn==1.2.2');
    expect(pypi.modules.torch).toBe('torch==2.3.1');
    expect(pypi.base).toBe('python:3.11-slim');
  });

  it('an unknown profile name says which profiles exist', async () => {
    await expect(readProfile('ubuntu', { dockerDir: DOCKER_DIR })).rejects.toMatchObject({
      code: 'E_USAGE',
      hint: expect.stringContaining('debian, pypi'),
    });
  });
});

describe('renderDockerfile', () => {
  it('apt: base, packages, import check as the notebook user, runner, non-root user, /work', async () => {
    const { profile } = await readProfile('debian', { dockerDir: DOCKER_DIR });
    const recipe = planImageRecipe([{ id: 'a', requires: ['numpy', 'sklearn', 'tensorflow'] }], profile);
    const text = renderDockerfile(recipe);
    const lines = text.split('\n');
    expect(lines).toContain('FROM junobench/base:bookworm');
    expect(text).toContain('apt-get install -y --no-install-recommends');
    for (const p of ['python3-ipykernel', 'python3-jupyter-client', 'python3-numpy', 'python3-sklearn'])
      expect(lines).toContain(`      ${p} \\`);
    expect(text).not.toContain('tensorflow');
    expect(text).toContain('COPY runner/ /opt/junobench/');
    expect(CONTAINER_LAYOUT.runner).toBe('/opt/junobench/junobench_runner.py');
    expect(text).toContain('python3 -c "import ipykernel, jupyter_client, numpy, sklearn"');
    // The import check runs after USER: as the notebook user.
    expect(text.indexOf(`USER ${CONTAINER_LAYOUT.user}`)).toBeLessThan(text.indexOf('-c "import'));
    expect(lines).toContain(`WORKDIR ${CONTAINER_LAYOUT.workdir}`);
    expect(text).toContain(`useradd --create-home --uid ${CONTAINER_LAYOUT.uid}`);
    expect(renderDockerfile(recipe)).toBe(text);
  });

  it('the content hash changes with the packages and the runner, not with which instances need them', async () => {
    const { profile } = await readProfile('debian', { dockerDir: DOCKER_DIR });
    const a = planImageRecipe([{ id: 'a', requires: ['numpy', 'tensorflow'] }], profile);
    const b = planImageRecipe(
      [
        { id: 'b', requires: ['numpy'] },
        { id: 'c', requires: ['tensorflow'] },
      ],
      profile,
    );
    const c = planImageRecipe([{ id: 'a', requires: ['numpy', 'pandas'] }], profile);
    const h = (r: typeof a, runner = 'print(1)\n') => hashImageContent(r, renderDockerfile(r), runner);
    expect(h(a)).toBe(h(b));
    expect(h(a)).not.toBe(h(c));
    expect(h(a)).not.toBe(h(a, 'print(2)\n'));
    expect(imageTagFor(a, h(a))).toMatch(/^junobench\/benchmark:debian-[0-9a-f]{12}$/);
  });

  it('pip: quoted pinned requirements, system libraries with apt', async () => {
    const { profile } = await readProfile('pypi', { dockerDir: DOCKER_DIR });
    const text = renderDockerfile(planImageRecipe([{ id: 'a', requires: ['sklearn', 'cv2'] }], profile));
    expect(text.split('\n')).toContain('FROM python:3.11-slim');
    expect(text).toContain("'scikit-learn==1.2.2'");
    expect(text).toContain("'opencv-python==4.10.0.84'");
    expect(text).toContain("'ipykernel>=6.20.0'");
    expect(text).toContain('libgl1');
  });
});

describe('the pypi profile for the embedded instances', () => {
  // The pypi image itself needs PyPI and a registry, which CI machines lack:
  // what can be checked here is that its rendered recipe pins every
  // requirement the instances need, by the published requirement names.
  it('pins every module the embedded instances require, by the published requirement name', async () => {
    const instances = await readInstanceRequirements(path.join(ROOT, 'raw/instances'));
    const rendered = await renderImage({
      profile: path.join(DOCKER_DIR, 'profiles/pypi.json'),
      root: ROOT,
      instances,
      dockerDir: tmp,
    });
    const text = await readFile(path.join(tmp, 'Dockerfile.pypi'), 'utf8');
    expect(text).toBe(rendered.dockerfile);
    const pinned = new Map(
      [...text.matchAll(/^ {6}'([^']+)'/gm)].map(
        (m) => [normalizeDistribution(requirementName(m[1]!)), m[1]!] as const,
      ),
    );
    const needed = new Set(instances.flatMap((i) => i.requires));
    expect(needed.size).toBeGreaterThan(0);
    for (const mod of Object.keys(rendered.recipe.modules)) {
      for (const req of rendered.recipe.modules[mod]!) {
        expect(req, `${mod} must be pinned exactly`).toMatch(/^[A-Za-z0-9._-]+==[A-Za-z0-9.]+$/);
        expect(pinned.get(normalizeDistribution(requirementName(req))), `${mod} → ${req} in Dockerfile.pypi`).toBe(req);
      }
    }
    // Every non-stdlib module an instance needs is covered (mapped or knowingly left out).
    for (const mod of needed) {
      const covered = rendered.recipe.modules[mod] !== undefined || rendered.recipe.unavailable[mod] !== undefined;
      expect(covered || PYTHON_STDLIB_MODULES.has(mod), `module ${mod}`).toBe(true);
    }
  });
});
