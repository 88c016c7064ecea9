// Test-only: never exported from index.ts, never imported by library code.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { pack } from 'tar-fs';
import { JunoError, sha256 } from '@junobench/core';
import { hashRunnerFiles, readRunnerFiles } from '../src/runner-path.js';
import { engineMessage } from '../src/container-exec.js';

/** packages/runtime/test-fixtures/sandbox: the sandbox tests' image recipe. */
const SANDBOX_FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test-fixtures/sandbox');

/**
 * The image the sandbox tests run notebooks in: JUNOBENCH_TEST_IMAGE when the
 * suite built one for every container test (the benchmark image of the
 * embedded instances: test/containers-global-setup.ts), else the minimal
 * runner image of test-fixtures/sandbox/Dockerfile, built through the engine
 * API when its content-hash tag is missing (minutes, once per machine).
 */
export async function ensureSandboxTestImage(docker: Docker, onOutput?: (line: string) => void): Promise<string> {
  const shared = process.env.JUNOBENCH_TEST_IMAGE;
  if (shared) {
    await docker.getImage(shared).inspect();
    return shared;
  }
  const dockerfile = await readFile(path.join(SANDBOX_FIXTURES, 'Dockerfile'));
  const tag = `junobench/sandbox-test:${sha256(`${sha256(dockerfile)}${await hashRunnerFiles()}`).slice(0, 12)}`;
  try {
    await docker.getImage(tag).inspect();
    return tag;
  } catch {
    // not built yet
  }
  const runner = await readRunnerFiles();
  const context = pack(SANDBOX_FIXTURES, {
    entries: ['Dockerfile'],
    finalize: false,
    finish: (p) => {
      for (const f of runner) p.entry({ name: `runner/${f.name}`, mode: 0o644 }, f.content);
      p.finalize();
    },
  });
  const errors: string[] = [];
  try {
    const stream = await docker.buildImage(context, { t: tag, networkmode: 'host', rm: true, forcerm: true });
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(err) : resolve()),
        (e: { stream?: string; error?: string }) => {
          if (e.error) errors.push(e.error);
          if (e.stream) onOutput?.(e.stream.trimEnd());
        },
      );
    });
  } catch (e) {
    errors.push(engineMessage(e));
  }
  if (errors.length > 0) {
    throw new JunoError('E_ENV_ENGINE', `building the sandbox test image ${tag} failed: ${errors.join('\n')}`, {
      hint: 'run `sh tools/setup-engine.sh` (engine and offline base image), then the container tests again',
    });
  }
  return tag;
}
