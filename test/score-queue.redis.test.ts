// `score --queue` end to end with a real `junobench worker` on the project's
// test Redis (tools/setup-redis.sh): repairs run on the worker, with the
// instances on a shared folder read in place.
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runJunobench } from './run-cli.js';
import {
  deletePrefix,
  requireTestRedis,
  startWorker,
  stopWorkers,
  uniquePrefix,
  type WorkerProcess,
} from './queue-helpers.js';

const url = requireTestRedis();
const prefix = uniquePrefix('score');
let tmp: string;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-score-queue-'));
  worker = startWorker(url, 'score-w1', {
    prefix,
    args: ['--jobs', '1', '--cache-dir', path.join(tmp, 'cache'), '--shared-instances', path.join(tmp, 'shared')],
  });
  await worker.waitFor(/worker score-w1 ready/);
}, 180_000);

afterAll(async () => {
  if (worker) await stopWorkers([worker]);
  await deletePrefix(url, prefix);
  await rm(tmp, { recursive: true, force: true });
}, 60_000);

describe('junobench score --queue', () => {
  it('--shared-instances: the repairs run on the worker, their scratch copies made in the shared folder and removed', async () => {
    // Workers read every folder in place and refuse one outside the shared folder; the repairs' scratch copies were
    // made in $TMPDIR, so this failed after the runtime check with "… is not inside the shared folder".
    const shared = path.join(tmp, 'shared');
    const instances = path.join(shared, 'instances');
    await cp(path.join(repoRoot, 'raw/instances', 'numpy_2'), path.join(instances, 'numpy_2'), { recursive: true });
    const tasks = path.join(tmp, 't.jsonl');
    const oracle = path.join(tmp, 'oracle.jsonl');
    expect(
      (await runJunobench(['tasks', 'export', '--task', 'repair', '--instances', instances, '-o', tasks])).code,
    ).toBe(0);
    expect(
      (await runJunobench(['baseline', 'oracle', '--tasks', tasks, '--instances', instances, '-o', oracle])).code,
    ).toBe(0);
    const r = await runJunobench(
      [
        'score',
        oracle,
        '--tasks',
        tasks,
        '--instances',
        instances,
        '--shared-instances',
        shared,
        '--queue',
        url,
        '--runtime',
        'local',
      ],
      {
        env: { JUNOBENCH_QUEUE_PREFIX: prefix },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^repair {4}1 scorable tasks: resolved 100\.0% \(1\/1\) · pass@1 100\.0%$/m);
    expect(r.stderr).toMatch(/files: 0 blob\(s\) sent, 0 already in Redis/);
    expect(worker!.stdout()).toMatch(/done in .+: the notebook ran to its end/);
    expect(await readdir(path.join(shared, '.junobench-score'))).toEqual([]);
  }, 600_000);
});
