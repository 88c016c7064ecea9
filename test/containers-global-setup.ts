// vitest's globalSetup for the `containers` project (vitest.config.ts): the benchmark image of the embedded
// instances, built once per run with `junobench image build` (the debian profile, through the engine at DOCKER_HOST)
// and shared by every container test through JUNOBENCH_TEST_IMAGE: the sandbox tests run their notebooks in it
// (packages/runtime/test-helpers/sandbox-test-image.ts), and `junobench build --runtime docker` on the embedded raw/
// finds it by its content-hash tag. One image build per run instead of one per test file's recipe.
//
// JUNOBENCH_TEST_IMAGE given by the caller is used as it is.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, runJunobench } from './run-cli.js';

export async function setup(): Promise<void> {
  if (process.env.JUNOBENCH_TEST_IMAGE) return;
  const root = await mkdtemp(path.join(os.tmpdir(), 'jb-test-image-'));
  try {
    // A copy of docker/ (its profiles are read, its recipe written): the checkout's own files stay as they are.
    await cp(path.join(repoRoot, 'docker'), path.join(root, 'docker'), { recursive: true });
    const record = path.join(root, 'image.json');
    const t0 = Date.now();
    const r = await runJunobench(
      ['image', 'build', '--instances', path.join(repoRoot, 'raw/instances'), '--record', record],
      { cwd: root },
    );
    if (r.code !== 0) {
      throw new Error(`the container tests' image could not be built (exit ${r.code}):\n${r.stderr}\n${r.stdout}`);
    }
    const { tag } = JSON.parse(await readFile(record, 'utf8')) as { tag: string };
    process.env.JUNOBENCH_TEST_IMAGE = tag;
    console.error(`containers: the benchmark image ${tag} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
