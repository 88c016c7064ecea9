// vitest's globalSetup for the `containers` project (vitest.config.ts): the benchmark image of the embedded
// instances, built once per run with `junobench image build` (the debian profile, through the engine at DOCKER_HOST)
// and shared by every container test through JUNOBENCH_TEST_IMAGE: the sandbox tests run their notebooks in it
// (packages/runtime/test-helpers/sandbox-test-image.ts), and `junobench build --runtime docker` on the embedded raw/
// finds it by its content-hash tag. One image build per run instead of one per test file's recipe.
//
// The build starts here and is not waited for: on a fresh machine it takes six or seven minutes, mostly downloading
// and unpacking Debian's packages inside the engine, and the kernel, Redis and browser files of the same lane (the
// `services` project, which runs first: vitest.config.ts) need no image. Each container test file waits for it in
// test/containers-wait-image.ts, which reads the outcome this setup writes to JUNOBENCH_TEST_IMAGE_STATUS.
//
// JUNOBENCH_TEST_IMAGE given by the caller is used as it is.
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, runJunobench } from './run-cli.js';

/** What the background build ended with: the image's tag, or why there is none. */
export type TestImageStatus = { tag: string; seconds: number } | { error: string };

export async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.JUNOBENCH_TEST_IMAGE) return undefined;
  const root = await mkdtemp(path.join(os.tmpdir(), 'jb-test-image-'));
  const statusFile = path.join(root, 'status.json');
  // Set before any test worker starts, so every worker inherits it.
  process.env.JUNOBENCH_TEST_IMAGE_STATUS = statusFile;
  const building = buildImage(root).then(async (status) => {
    // Atomic: a waiting worker reads either nothing or the whole outcome.
    await writeFile(`${statusFile}.tmp`, JSON.stringify(status));
    await rename(`${statusFile}.tmp`, statusFile);
    console.error(
      'tag' in status
        ? `containers: the benchmark image ${status.tag} (built in ${status.seconds} s, beside the services files)`
        : `containers: the benchmark image could not be built: ${status.error}`,
    );
  });
  // The lane's end: the build is over by then (every container file waited for it), unless no container file ran.
  return async () => {
    await building;
    await rm(root, { recursive: true, force: true });
  };
}

async function buildImage(root: string): Promise<TestImageStatus> {
  try {
    // A copy of docker/ (its profiles are read, its recipe written): the checkout's own files stay as they are.
    const work = path.join(root, 'work');
    await cp(path.join(repoRoot, 'docker'), path.join(work, 'docker'), { recursive: true });
    const record = path.join(work, 'image.json');
    const t0 = Date.now();
    const r = await runJunobench(
      ['image', 'build', '--instances', path.join(repoRoot, 'raw/instances'), '--record', record],
      { cwd: work },
    );
    if (r.code !== 0) {
      return { error: `the container tests' image could not be built (exit ${r.code}):\n${r.stderr}\n${r.stdout}` };
    }
    const { tag } = JSON.parse(await readFile(record, 'utf8')) as { tag: string };
    return { tag, seconds: Math.round((Date.now() - t0) / 1000) };
  } catch (e) {
    return { error: `the container tests' image could not be built: ${(e as Error).message}` };
  }
}
