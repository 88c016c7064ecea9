// The owner watchdog against a stand-in engine on a unix socket (the engine API's two calls it makes): end of its
// stdin means its parent is gone, and it removes the parent's containers, then exits; a parent that ends normally is
// not kept alive by it, and its watchdog leaves soon after. The real engine and a SIGKILLed parent:
// container-orphans.container.test.ts.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { OWNER_WATCHDOG_SCRIPT } from './container-owner-watchdog.js';

const LABEL = 'org.junobench.owner=host:123:456';
let tmp: string;
let engine: Server;
let socketPath: string;
let requests: string[];
let containers: string[];

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-watchdog-'));
  socketPath = path.join(tmp, 'engine.sock');
  requests = [];
  containers = [];
  // Lists the containers whose label filter is ours; removes one on DELETE.
  engine = createServer((req, res) => {
    requests.push(`${req.method} ${decodeURIComponent(req.url ?? '')}`);
    if (req.method === 'DELETE') {
      containers = containers.filter((c) => !req.url!.startsWith(`/containers/${c}?`));
      return res.writeHead(204).end();
    }
    const ours = req.url!.includes(encodeURIComponent(JSON.stringify({ label: [LABEL] })));
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(ours ? containers.map((Id) => ({ Id })) : []));
  });
  await new Promise<void>((r) => engine.listen(socketPath, r));
});

afterEach(async () => {
  await new Promise<void>((r) => engine.close(() => r()));
  await rm(tmp, { recursive: true, force: true });
});

it('at the end of its stdin, removes every container of the owner (force), then exits', async () => {
  containers = ['c1', 'c2'];
  const watchdog = spawn(process.execPath, ['-e', OWNER_WATCHDOG_SCRIPT, JSON.stringify({ socketPath }), LABEL], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let printed = '';
  watchdog.stdout.on('data', (d: Buffer) => (printed += d.toString()));
  watchdog.stderr.on('data', (d: Buffer) => (printed += d.toString()));
  const exited = new Promise<number | null>((r) => watchdog.once('exit', (code) => r(code)));
  // Nothing happens while the parent lives.
  await new Promise((r) => setTimeout(r, 300));
  expect(requests).toEqual([]);
  watchdog.stdin.end();
  expect(await exited).toBe(0);
  expect(containers).toEqual([]);
  expect(requests).toContain('DELETE /containers/c1?force=true&v=true');
  expect(requests).toContain('DELETE /containers/c2?force=true&v=true');
  expect(requests[0]).toBe(`GET /containers/json?all=true&filters=${JSON.stringify({ label: [LABEL] })}`);
  expect(printed).toBe('');
}, 30_000);

it('never keeps its parent alive; one per process; after a normal exit it finds nothing and leaves', async () => {
  const module = path.join(path.dirname(fileURLToPath(import.meta.url)), 'container-owner-watchdog.ts');
  const parent = await execa(
    process.execPath,
    [
      ...['--import', 'tsx', '--input-type=module', '-e'],
      `import { startOwnerWatchdog } from ${JSON.stringify(module)};
       const docker = { modem: { socketPath: ${JSON.stringify(socketPath)} } };
       const first = startOwnerWatchdog(docker, ${JSON.stringify(LABEL)});
       const second = startOwnerWatchdog(docker, ${JSON.stringify(LABEL)});
       console.log(JSON.stringify({ first, second }));`,
    ],
    { timeout: 20_000 },
  );
  const { first, second } = JSON.parse(parent.stdout) as { first?: number; second?: number };
  expect(first).toBeGreaterThan(0);
  expect(second).toBeUndefined();
  // Its parent gone, the watchdog asks the engine, finds none of its containers, and exits.
  for (let i = 0; i < 100 && isAlive(first!); i++) await new Promise((r) => setTimeout(r, 100));
  expect(isAlive(first!)).toBe(false);
  expect(requests.filter((r) => r.startsWith('GET')).length).toBeGreaterThan(0);
  expect(requests.filter((r) => r.startsWith('DELETE'))).toEqual([]);
}, 30_000);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (not yet reaped by whoever adopted it) has finished.
  return !/^\d+ \(.*\) Z/.test(readStat(pid));
}

function readStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}
