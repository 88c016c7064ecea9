import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { pack } from 'tar-fs';
import { sha256 } from '@junobench/core';
import { RUNNER_PATH } from './runner-path.js';

/** test/fixtures/sandbox: the sandbox tests' image recipe. */
export const SANDBOX_FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/sandbox');

/**
 * For container tests only: the minimal runner image of
 * test/fixtures/sandbox/Dockerfile, built through the engine API when its
 * content-hash tag is missing (minutes, once per machine), else reused.
 */
export async function ensureSandboxTestImage(docker: Docker, onOutput?: (line: string) => void): Promise<string> {
  const dockerfile = await readFile(path.join(SANDBOX_FIXTURES, 'Dockerfile'));
  const runner = await readFile(RUNNER_PATH);
  const tag = `junobench/sandbox-test:${sha256(`${sha256(dockerfile)}${sha256(runner)}`).slice(0, 12)}`;
  try {
    await docker.getImage(tag).inspect();
    return tag;
  } catch {
    // not built yet
  }
  const context = pack(SANDBOX_FIXTURES, {
    entries: ['Dockerfile'],
    finalize: false,
    finish: (p) => {
      p.entry({ name: 'junobench_runner.py', mode: 0o644 }, runner);
      p.finalize();
    },
  });
  const stream = await docker.buildImage(context, { t: tag, networkmode: 'host', rm: true, forcerm: true });
  const errors: string[] = [];
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
  if (errors.length > 0) throw new Error(`building ${tag} failed: ${errors.join('\n')}`);
  return tag;
}
