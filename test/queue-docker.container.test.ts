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
import type { Scorecard, VerificationReport } from '@junobench/core';
import { connectDockerEngine } from '@junobench/runtime';
import { ensureSandboxTestImage } from '../packages/runtime/test-helpers/sandbox-test-image.js';
import { writeTestInstance } from '../packages/verify/test-helpers/make-test-instance.js';
import { deletePrefix, requireTestRedis, startWorker, uniquePrefix, type WorkerProcess } from './queue-helpers.js';
import { writeForgedRepair, writeForgeryFixture, type ForgeryFixture } from './forgery-fixture.js';
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

describe('a notebook cannot write its own verdict (docker runtime, at the CLI)', () => {
  let fx: ForgeryFixture;
  beforeAll(async () => {
    fx = await writeForgeryFixture(path.join(tmp, 'forgery'));
  });

  it('verify: a reproduced notebook forging its crash and a fixed one forging "completed" are not verified', async () => {
    // Seen before: fixed-ok for a notebook raising 1/0, crash-reproduced with a made-up KeyError.
    const json = path.join(tmp, 'forgery', 'v.json');
    const r = await runJunobench([
      'verify',
      '--instances',
      fx.verifyInstances,
      '--runtime',
      'docker',
      '--image',
      image,
      '--no-cache',
      '--json',
      json,
    ]);
    expect(r.code, r.stderr).toBe(1);
    const v = (JSON.parse(await readFile(json, 'utf8')) as VerificationReport).instances[0]!;
    // In the worker's slot containers the forging cell finds no runner to write to or kill (its sandbox holds only
    // itself and its init), so each notebook's own outcome stands: the reproduced one does not crash, the fixed one
    // raises 1/0. (Fresh containers make the killed runner a kernel death: container-forgery.container.test.ts.)
    expect([v.status, v.reproduced.outcome, v.fixed.outcome]).toEqual(['not-verified', 'no-crash', 'fixed-crashed']);
    expect(v.reproduced.observed).toBeUndefined();
  }, 900_000);

  it('score: a repair that keeps the crashing cell and adds one forging "completed" is not resolved', async () => {
    // Seen before: resolved.
    const tasks = path.join(tmp, 'forgery', 't.jsonl');
    const exported = await runJunobench([
      'tasks',
      'export',
      '--task',
      'repair',
      '--instances',
      fx.scoreInstances,
      '-o',
      tasks,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const predictions = path.join(tmp, 'forgery', 'p.jsonl');
    await writeForgedRepair(tasks, predictions);
    const json = path.join(tmp, 'forgery', 'card.json');
    const r = await runJunobench([
      'score',
      predictions,
      '--tasks',
      tasks,
      '--instances',
      fx.scoreInstances,
      '--runtime',
      'docker',
      '--image',
      image,
      '--json',
      json,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^repair {4}1 scorable tasks: resolved 0\.0% \(0\/1\)/m);
    const card = JSON.parse(await readFile(json, 'utf8')) as Scorecard;
    expect(card.runtime).toMatchObject({ kind: 'docker', sandboxed: true });
    // The forged "completed" reaches nobody: the crashing cell it kept crashes, as it would anywhere.
    expect(card.repair!.results).toEqual([
      expect.objectContaining({
        outcome: 'crashed',
        resolved: false,
        error: expect.objectContaining({ ename: 'KeyError' }),
      }),
    ]);
  }, 900_000);
});
