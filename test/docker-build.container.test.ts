// `junobench build --runtime docker` end to end on a copy of the embedded raw/:
// the benchmark image (debian profile) is built through dockerode for the
// embedded instances, and every instance verifies inside it with the same
// outcomes as in the local runtime (TensorFlow skipped in both: not packaged
// in Debian).
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ImageRecord, VerificationReport } from '@junobench/core';
import { repoRoot, runJunobench, type CliRun } from './run-cli.js';
import { embeddedBuild } from './suite-build.js';

let dir: string;
let build: CliRun;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-docker-build-'));
  await cp(path.join(repoRoot, 'raw'), path.join(dir, 'raw'), { recursive: true });
  await cp(path.join(repoRoot, 'docker'), path.join(dir, 'docker'), { recursive: true });
  build = await runJunobench(['build', '--runtime', 'docker', '--cache-dir', path.join(dir, 'cache')], { cwd: dir });
}, 2_400_000);

describe('junobench build --runtime docker', () => {
  it('builds the benchmark image and records it', async () => {
    expect(build.code, `${build.stdout}\n${build.stderr}`).toBe(0);
    expect(build.stdout).toMatch(/^image\s+done in/m);
    const record = JSON.parse(await readFile(path.join(dir, 'curated/image.json'), 'utf8')) as ImageRecord;
    expect(record.profile).toBe('debian');
    expect(record.tag).toMatch(/^junobench\/benchmark:debian-[0-9a-f]{12}$/);
    expect(Object.keys(record.modules)).toEqual(
      expect.arrayContaining(['numpy', 'pandas', 'sklearn', 'torch', 'seaborn', 'statsmodels']),
    );
  });

  it('verifies every embedded instance inside it with the same outcomes as the local runtime', async () => {
    const docker = JSON.parse(
      await readFile(path.join(dir, 'curated/verification.json'), 'utf8'),
    ) as VerificationReport;
    expect(docker.runtime).toBe('docker');
    expect(docker.instances.every((v) => v.reproduced.runtime.kind === 'docker' && v.reproduced.runtime.imageId)).toBe(
      true,
    );
    // The local runtime's outcomes: the suite's build of the same raw/ (test/suite-build.ts).
    const local = await embeddedBuild();
    expect(local.run.code, local.run.stderr).toBe(0);
    const localReport = JSON.parse(
      await readFile(path.join(local.dir, 'curated/verification.json'), 'utf8'),
    ) as VerificationReport;
    expect(localReport.runtime).toBe('local');
    const outcomes = (r: VerificationReport) =>
      r.instances.map((v) => [v.instance, v.status, v.reproduced.outcome, v.fixed.outcome]);
    // On a difference, say why each differing version ended as it did (the runner's or the container's reason).
    const reasons = (r: VerificationReport) =>
      r.instances.flatMap((v) =>
        [v.reproduced, v.fixed]
          .filter((x) => x.reason)
          .map((x) => `${r.runtime} ${v.instance}/${x.version}: ${x.outcome}: ${x.reason}`),
      );
    expect(outcomes(docker), [...reasons(docker), ...reasons(localReport)].join('\n')).toEqual(outcomes(localReport));
    expect(docker.summary).toMatchObject({ notVerified: 0, flaky: 0, skipped: 1 });
    expect(docker.instances.find((v) => v.status === 'skipped')?.instance).toBe('tensorflow_1');
  }, 900_000);

  it('a second build with nothing changed skips every stage, the image included', async () => {
    const again = await runJunobench(['build', '--runtime', 'docker', '--cache-dir', path.join(dir, 'cache')], {
      cwd: dir,
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/0 stage\(s\) ran, 9 up to date/);
  }, 600_000);
});
