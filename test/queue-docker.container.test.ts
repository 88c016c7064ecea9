// A `junobench worker --runtime docker` on the real test Redis and the real
// container engine: `verify --queue --runtime docker` gets the same outcomes
// as a docker run without the queue, and the worker's notebooks ran in
// sandboxed containers (the runtime identity names the image).
//
// The sandbox test image (Python with the kernel stack only) keeps this test
// independent of the benchmark image: the instances use the standard library.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationReport } from '@junobench/core';
import { connectDockerEngine } from '@junobench/runtime';
import { ensureSandboxTestImage } from '../packages/runtime/test-helpers/sandbox-test-image.js';
import { writeTestInstance } from '../packages/verify/test-helpers/make-test-instance.js';
import { deletePrefix, requireTestRedis, startWorker, uniquePrefix, type WorkerProcess } from './queue-helpers.js';
import { runJunobench } from './run-cli.js';

const url = requireTestRedis();
let tmp: string;
let image: string;
let instances: string;
const prefix = uniquePrefix('docker');
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  image = await ensureSandboxTestImage(await connectDockerEngine(process.env));
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-queue-docker-'));
  instances = path.join(tmp, 'instances');
  await writeTestInstance(instances, {
    id: 'stdlib_1',
    reproduced: ['import json\nrows = json.loads("[1, 2]")', 'total = sum(rows)', 'ratio = total / (len(rows) - 2)'],
    fixed: ['import json\nrows = json.loads("[1, 2]")', 'total = sum(rows)', 'ratio = total / max(len(rows) - 2, 1)'],
    crash: { cell: 2, ename: 'ZeroDivisionError', evalue: 'division by zero', match: 'exact' },
  });
  await writeTestInstance(instances, {
    id: 'stdlib_2',
    reproduced: ['d = {"a": 1}', 'd["b"]'],
    fixed: ['d = {"a": 1}', 'd.get("b")'],
    crash: { cell: 1, ename: 'KeyError', evalue: "'b'", match: 'exact' },
  });
}, 900_000);

afterAll(async () => {
  for (const w of workers) w.proc.kill('SIGKILL');
  await deletePrefix(url, prefix);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const verifyArgs = (json: string) => [
  'verify',
  '--instances',
  instances,
  '--runtime',
  'docker',
  '--image',
  image,
  '--no-cache',
  '--json',
  json,
];

describe('verify --queue with a docker worker', () => {
  it("runs every notebook in the worker's containers with the outcomes of a direct docker run", async () => {
    const direct = await runJunobench(verifyArgs(path.join(tmp, 'direct.json')));
    expect(direct.code, direct.stderr).toBe(0);

    const worker = startWorker(url, 'dockw', {
      prefix,
      args: ['--runtime', 'docker', '--image', image, '--jobs', '2', '--cache-dir', path.join(tmp, 'worker-cache')],
    });
    workers.push(worker);
    await worker.waitFor(/ready: docker runtime, image /, 120_000);
    const queued = await runJunobench([...verifyArgs(path.join(tmp, 'queued.json')), '--queue', url], {
      env: { JUNOBENCH_QUEUE_PREFIX: prefix },
    });
    expect(queued.code, queued.stderr).toBe(0);
    // Every job (the four runs and the describe that gives the cache key) went to the docker worker.
    expect(queued.stderr).toMatch(/queue: (\d+) job\(s\) \(dockw \1\)/);

    const read = async (f: string) => JSON.parse(await readFile(path.join(tmp, f), 'utf8')) as VerificationReport;
    const [a, b] = [await read('direct.json'), await read('queued.json')];
    const outcomes = (r: VerificationReport) =>
      r.instances.map((v) => [
        v.instance,
        v.status,
        v.reproduced.outcome,
        v.fixed.outcome,
        v.reproduced.observed?.ename ?? null,
      ]);
    expect(outcomes(b)).toEqual(outcomes(a));
    expect(outcomes(b)).toEqual([
      ['stdlib_1', 'verified', 'crash-reproduced', 'fixed-ok', 'ZeroDivisionError'],
      ['stdlib_2', 'verified', 'crash-reproduced', 'fixed-ok', 'KeyError'],
    ]);
    // Same image, same identity, same cache keys: a queue run can share the local cache of a docker run.
    expect(b.runtime).toBe('docker');
    for (const v of b.instances) expect(v.reproduced.runtime).toMatchObject({ kind: 'docker', image });
    expect(b.instances.map((v) => v.contentHash)).toEqual(a.instances.map((v) => v.contentHash));

    worker.proc.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.stdout() + worker.stderr()).toMatch(/4 run\(s\) done/);
  }, 900_000);
});
