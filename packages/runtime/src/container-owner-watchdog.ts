import { spawn } from 'node:child_process';
import type Docker from 'dockerode';

/** Where the watchdog reaches the engine: dockerode's own connection settings. */
export interface WatchdogEngine {
  socketPath?: string;
  host?: string;
  port?: number | string;
  protocol?: 'http' | 'https';
}

/**
 * The watchdog, run by `node -e` (no file to find, bundled CLI or sources alike). Its stdin is a pipe from its
 * parent, which never writes to it: end of file means the parent is gone, however it went (a SIGKILL runs none of its
 * own clean-up). It then force-removes every container carrying the parent's owner label, again until the engine
 * lists none (a create in flight when the parent died lands a moment later), and ends. It prints nothing.
 * argv: the engine (JSON), the label filter (`org.junobench.owner=<owner>`).
 */
export const OWNER_WATCHDOG_SCRIPT = `
const engine = JSON.parse(process.argv[1]);
const label = process.argv[2];
const client = require(engine.protocol === 'https' ? 'node:https' : 'node:http');
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const ask = (method, path) => new Promise((resolve) => {
  const target = engine.socketPath ? { socketPath: engine.socketPath } : { host: engine.host, port: engine.port };
  const req = client.request({ ...target, agent: false, method, path, timeout: 15000 }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (d) => (body += d));
    res.on('end', () => resolve({ status: res.statusCode, body }));
    res.on('error', () => resolve({ status: 0, body: '' }));
  });
  req.on('timeout', () => req.destroy());
  req.on('error', () => resolve({ status: 0, body: '' }));
  req.end();
});
const list = async () => {
  const r = await ask('GET', '/containers/json?all=true&filters=' + encodeURIComponent(JSON.stringify({ label: [label] })));
  try { const ids = JSON.parse(r.body).map((c) => c.Id); return r.status === 200 ? ids : undefined; } catch { return undefined; }
};
const sweep = async () => {
  let quiet = 0;
  for (let round = 0; round < 20 && quiet < 2; round++) {
    const ids = await list();
    quiet = ids && ids.length === 0 ? quiet + 1 : 0;
    await Promise.all((ids || []).map((id) => ask('DELETE', '/containers/' + id + '?force=true&v=true')));
    if (quiet < 2) await pause(500);
  }
  // Nothing is left to keep it running (no pipe, no pooled connection, no timer): it ends on its own.
  process.stdin.destroy();
};
process.stdin.on('data', () => undefined);
process.stdin.on('end', sweep);
process.stdin.on('error', sweep);
`;

/** The engines a watchdog of this process already watches (by address): one watchdog each, however many runtimes. */
const watched = new Set<string>();

/**
 * Make sure the containers this process labels with `labelFilter` (the owner label, `org.junobench.owner=<owner>`) go
 * the moment this process dies, even by SIGKILL: a small detached node process waits for the end of a pipe from this
 * one and then removes them through the engine API (OWNER_WATCHDOG_SCRIPT). Without it they ran on to their
 * wall-clock limit, or until the next runtime's sweep. It never keeps this process alive, and when this process ends
 * normally it finds nothing left and exits. A client with no socket or host (a test's stand-in) is not watched.
 * Returns the watchdog's pid when this call started one.
 */
export function startOwnerWatchdog(docker: Docker, labelFilter: string): number | undefined {
  const engine = engineOf(docker);
  if (!engine) return undefined;
  const key = `${JSON.stringify(engine)} ${labelFilter}`;
  if (watched.has(key)) return undefined;
  watched.add(key);
  // The parent's NODE_OPTIONS (a loader, a debugger) have no business in the watchdog.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  let child;
  try {
    child = spawn(process.execPath, ['-e', OWNER_WATCHDOG_SCRIPT, JSON.stringify(engine), labelFilter], {
      // Its own process group: a signal to this process's group (Ctrl-C, a supervisor's kill) does not take it along.
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env,
    });
  } catch {
    // Without a watchdog the next runtime's sweep still removes what a killed process left.
    return undefined;
  }
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  child.unref();
  // The pipe is a handle of this process too: unref'd, it keeps nothing alive; the OS closes it when this process ends.
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return child.pid;
}

function engineOf(docker: Docker): WatchdogEngine | undefined {
  const m = (docker as { modem?: Partial<Record<keyof WatchdogEngine, unknown>> }).modem;
  if (!m) return undefined;
  if (typeof m.socketPath === 'string' && m.socketPath) return { socketPath: m.socketPath };
  if (typeof m.host === 'string' && m.host) {
    return {
      host: m.host,
      ...(typeof m.port === 'number' || typeof m.port === 'string' ? { port: m.port } : {}),
      protocol: m.protocol === 'https' ? 'https' : 'http',
    };
  }
  return undefined;
}
