// `release verify` without --runtime: a release is someone else's notebooks,
// so it re-runs in the docker runtime when an engine answers and has the
// image the release names, and only otherwise in the local runtime, with a
// warning that says why. The release here names the sandbox test image (in a
// full run, the suite's benchmark image): what matters is where they ran.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatJson, type ImageRecord } from '@junobench/core';
import { connectDockerEngine } from '@junobench/runtime';
import { writeCuratedFixture, type Fixture } from '../packages/release/test-helpers/release.js';
import { ensureSandboxTestImage } from '../packages/runtime/test-helpers/sandbox-test-image.js';
import { runJunobench } from './run-cli.js';

let f: Fixture;
let archive: string;

beforeAll(async () => {
  const docker = await connectDockerEngine(process.env).catch((e: unknown) => {
    throw new Error(
      `no container engine: run \`sh tools/setup-engine.sh\` and export DOCKER_HOST (${(e as Error).message})`,
    );
  });
  const image = await ensureSandboxTestImage(docker);
  f = await writeCuratedFixture([{ id: 'pandas_1' }, { id: 'pandas_2' }]);
  const info = await docker.getImage(image).inspect();
  const record: ImageRecord = {
    profile: 'debian',
    tag: image,
    imageId: info.Id,
    size: info.Size,
    recipeHash: 'r'.repeat(64),
    base: 'junobench/base:bookworm',
    packages: {},
    modules: {},
    unavailable: {},
  };
  await writeFile(path.join(f.curated, 'image.json'), formatJson(record));
  const prepared = await runJunobench(['release', 'prepare', '0.1.0', '--recipe', f.recipe, '--out', f.releases], {
    cwd: f.root,
    env: { SOURCE_DATE_EPOCH: '1767225600' },
  });
  expect(prepared.code, prepared.stdout + prepared.stderr).toBe(0);
  archive = path.join(f.releases, 'junobench-0.1.0', 'junobench-0.1.0.tar.gz');
}, 900_000);

describe('release verify: the runtime it chooses', () => {
  it("runs in the docker runtime when the engine has the release's image", async () => {
    const r = await runJunobench(['release', 'verify', archive], { cwd: f.root });
    // The suite's benchmark image has pandas (2 as released); the kernel-stack-only image of a single file's run
    // does not (2 not checked here, naming pandas). Either way the re-run was the docker runtime's.
    expect(r.stdout).toMatch(
      /^re-run \(docker runtime\) of 2 instances: 2 (as released \(the outcomes of verification\.json\)|not checked here \(cannot run in this runtime\))$/m,
    );
    expect(r.stderr).not.toMatch(/UNSANDBOXED/);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, 900_000);

  it('falls back to the local runtime, saying why, when no engine answers', async () => {
    const r = await runJunobench(['release', 'verify', archive], {
      cwd: f.root,
      env: { DOCKER_HOST: `unix://${path.join(f.root, 'no-engine.sock')}` },
    });
    expect(r.stderr).toMatch(
      /run in the local runtime's bubblewrap sandbox \(no network, none of your files; no container engine answers\)/,
    );
    expect(r.stdout).toMatch(
      /^re-run \(local runtime\) of 2 instances: 2 as released \(the outcomes of verification\.json\)$/m,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, 900_000);

  it('--runtime local is obeyed even when the image is there', async () => {
    const r = await runJunobench(['release', 'verify', archive, '--runtime', 'local'], { cwd: f.root });
    expect(r.stderr).toMatch(
      /run in the local runtime's bubblewrap sandbox \(no network, none of your files; --runtime local\)/,
    );
    expect(r.stdout).toMatch(/^re-run \(local runtime\)/m);
  }, 900_000);
});
