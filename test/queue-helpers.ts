// Test-only helpers for the queue end-to-end tests: the project's test Redis,
// `junobench worker` processes, and a Redis server of a test's own.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { Redis } from 'ioredis';
import { junobenchBin, repoRoot } from './run-cli.js';

// The project's test Redis, per-test key prefixes and their cleanup: the queue package's own test helpers.
export { deletePrefix, requireTestRedis, uniquePrefix } from '../packages/queue/test-helpers/queue.js';

/** A running `junobench worker`, with its output so far. */
export interface WorkerProcess {
  name: string;
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when the output (stdout + stderr) matches, fails after `ms` with the output. */
  waitFor: (re: RegExp, ms?: number) => Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

export function startWorker(
  url: string,
  name: string,
  options: { prefix: string; args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string },
): WorkerProcess {
  const proc = spawn(
    process.execPath,
    [junobenchBin, 'worker', '--queue', url, '--name', name, ...(options.args ?? [])],
    {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, CI: '1', JUNOBENCH_QUEUE_PREFIX: options.prefix, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  });
  proc.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const l of listeners) l();
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitFor = (re: RegExp, ms = 120_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = (out + err).match(re);
        if (m) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve(m);
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`worker ${name}: no ${re} within ${ms} ms; output:\n${out}\n${err}`));
      }, ms);
      listeners.add(check);
      check();
      void exited.then((code) => {
        if (listeners.has(check)) {
          listeners.delete(check);
          clearTimeout(timer);
          reject(new Error(`worker ${name} exited (${code}) before ${re}; output:\n${out}\n${err}`));
        }
      });
    });
  return { name, proc, stdout: () => out, stderr: () => err, waitFor, exited };
}

/** Stop workers this test started (by their process, never by name); SIGKILL after 20 s. */
export async function stopWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
      w.proc.kill('SIGTERM');
      const timer = setTimeout(() => w.proc.kill('SIGKILL'), 20_000);
      await w.exited;
      clearTimeout(timer);
    }),
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A redis-server of the test's own (the Debian package's binary), nothing persisted: restarting it loses every key. */
export async function startOwnRedis(port: number): Promise<ChildProcess> {
  let binary: string;
  try {
    binary = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('redis-server is not installed: run `sh tools/setup-redis.sh`');
  }
  const proc = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
    ],
    {
      stdio: 'ignore',
    },
  );
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  for (let i = 0; i < 100; i++) {
    try {
      await redis.connect();
      await redis.ping();
      redis.disconnect();
      return proc;
    } catch {
      redis.disconnect();
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  proc.kill('SIGKILL');
  throw new Error(`redis-server did not start on 127.0.0.1:${port}`);
}
