// A queue worker whose runtime answers every run at once: what is left is
// the queue's own cost per job (fetch, lock, blob cache, completion, events).
// Usage (by bench/queue/run.ts): npx tsx bench/queue/noop-worker.ts <redis-url> <prefix> <name> <jobs>
import os from 'node:os';
import path from 'node:path';
import type { Runtime } from '@junobench/runtime';
import { runWorker } from '@junobench/queue';

const [url, prefix, name, jobs] = process.argv.slice(2) as [string, string, string, string];
const noop: Runtime = {
  kind: 'local',
  describe: async () => ({ kind: 'local', python: 'noop', packages: {} }),
  fingerprint: async () => 'local:noop-bench',
  close: async () => undefined,
  async run(runs, opts = {}) {
    return runs.map((r) => {
      const result = { id: r.id, status: 'completed' as const, cells: [], durationMs: 0 };
      opts.onResult?.(result, r);
      return result;
    });
  },
};
const handle = await runWorker({
  url,
  prefix,
  name,
  runtime: noop,
  jobs: Number(jobs),
  cacheDir: path.join(os.tmpdir(), `jb-bench-queue-${name}`),
  onEvent: (e) => {
    if (e.type === 'ready') console.log('ready');
  },
});
process.on('SIGTERM', () => void handle.stop('return'));
await handle.stopped;
