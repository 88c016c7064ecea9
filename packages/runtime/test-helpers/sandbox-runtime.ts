// The setup the sandbox's container tests share: the real engine, the sandbox
// test image, a temporary folder, and a container runtime per kernel start made on first use
// and closed when the suite ends.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type Docker from 'dockerode';
import { connectDockerEngine } from '../src/container-engine.js';
import { createContainerRuntime } from '../src/container-runtime.js';
import type { Runtime } from '../src/runtime.js';
import { ensureSandboxTestImage } from './sandbox-test-image.js';

export interface SandboxSuite {
  /** The suite's temporary folder (removed at the end). */
  readonly tmp: string;
  /** The suite's container runtime (1 GiB, 1 CPU) of slot containers, or of fresh ones (`fork: false`), made on first use. */
  runtime(options?: { fork?: boolean }): Runtime;
}

/** Registers the suite's beforeAll/afterAll hooks; call it at the top of a `*.container.test.ts` file. */
export function useSandboxSuite(name: string): SandboxSuite {
  let docker: Docker;
  let image: string;
  let tmp = '';
  const rts = new Map<boolean, Runtime>();
  beforeAll(async () => {
    docker = await connectDockerEngine(process.env);
    image = await ensureSandboxTestImage(docker);
    tmp = await mkdtemp(path.join(os.tmpdir(), `junobench-${name}-`));
  }, 600_000);
  afterAll(async () => {
    await Promise.all([...rts.values()].map((r) => r.close()));
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });
  return {
    get tmp() {
      return tmp;
    },
    runtime: ({ fork = true } = {}) => {
      let rt = rts.get(fork);
      if (!rt) rts.set(fork, (rt = createContainerRuntime({ docker, image, memory: '1g', cpus: 1, fork })));
      return rt;
    },
  };
}
