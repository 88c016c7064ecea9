import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { JunoError } from '@junobench/core';
import { startLongTimer, type LongTimer } from './start-long-timer.js';

/** One command in a fresh, sandboxed, self-removing container. */
export interface ContainerSpec {
  image: string;
  cmd: string[];
  /** Container user (`0:0`, `junobench`…); default the image's USER. */
  user?: string;
  env?: string[];
  workingDir?: string;
  /**
   * Host folders mounted into the container; nothing else of the host is
   * visible. Structured (the API's Mounts), not `host:container:ro` strings,
   * which a host path with a colon or comma breaks.
   */
  mounts?: { source: string; target: string; readOnly: boolean }[];
  memoryBytes?: number;
  nanoCpus?: number;
  pidsLimit?: number;
  capDrop?: string[];
  capAdd?: string[];
  labels?: Record<string, string>;
  /** The root file system is read-only; only `tmpfs` mounts (and binds) are writable. */
  readonlyRootfs?: boolean;
  /** Size-limited in-memory file systems: path → bytes. */
  tmpfs?: Record<string, number>;
  /** Size of /dev/shm; default the engine's (64 MB on Docker and Podman). */
  shmBytes?: number;
  /**
   * The seccomp profile, as the engine's `seccomp=` security option takes it
   * (Docker: the profile's JSON text; Podman: a path on the engine's host; see
   * createContainerRuntime): default the engine's own profile.
   */
  seccomp?: string;
  /**
   * The container's stdin stays open (attached) until `go()`: its command can
   * prepare (start a kernel, import) and wait for the line "go". When the
   * toolchain goes away, stdin closes (end of file) and the command can exit.
   */
  waitForGo?: boolean;
  /** The line `go()` writes (waitForGo); default `go`. */
  goLine?: string;
  /** Killed (SIGKILL) this many seconds after start (after `go()` with waitForGo). */
  wallClockSeconds: number;
  /** Output kept per stream (the tail); default 4 MiB. */
  maxOutputBytes?: number;
  /** More security options for the engine (e.g. `unmask=/proc/*`, so a nested sandbox can mount its own /proc). */
  securityOpt?: string[];
}

export interface ContainerOutcome {
  /** Exit status; null when the engine could not tell (the container vanished first). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The wall-clock limit killed the container. */
  timedOut: boolean;
  /** The caller's signal killed the container. */
  aborted: boolean;
  /** create + start, in ms: the per-run cost of a container. */
  setupMs: number;
  /** start → go, in ms: how long it was ready ahead of its turn (waitForGo). */
  waitMs?: number;
  /** go (or start) → exit, in ms. */
  runMs: number;
  /** exit → gone (removed), in ms. */
  teardownMs: number;
}

/** Label put on every container this toolchain starts (for `podman ps --filter label=…`). */
export const CONTAINER_LABEL = 'org.junobench.runtime';

/** A started container whose command may be waiting for `go()` (ContainerSpec.waitForGo). */
export interface LaunchedContainer {
  id: string;
  /** Let it proceed (write "go" to its stdin) and start its wall-clock limit. Idempotent. */
  go(): void;
  /** Its outcome, once it has ended and its output is read (removal may still be under way). Rejects with a JunoError on engine failures. */
  exited: Promise<ContainerOutcome>;
  /** Its outcome, once it has ended and the engine no longer knows it. Rejects with a JunoError on engine failures. */
  done: Promise<ContainerOutcome>;
  /** Its stdin after `go()` (waitForGo): more lines for its command; ending it closes the container's stdin. */
  stdin?: NodeJS.WritableStream;
  /** Kill it now (SIGKILL); its outcome follows as for any kill. */
  kill(): void;
}

/** Where a container's output goes as it arrives, besides the tails kept for its outcome. */
export interface ContainerOutputTaps {
  stdout?: Writable;
  stderr?: Writable;
}

/**
 * Create, attach to and start a fresh container for `spec`; resolves once it
 * runs (`done` then follows its fate). The container has no network, is
 * removed automatically when it ends (AutoRemove) and, to be sure on engines
 * where auto-removal races with wait (Podman), is removed again and waited
 * for until the engine no longer knows it: when `done` settles, it is gone.
 * A container that cannot be started is removed before this rejects.
 */
export async function launchContainer(
  docker: Docker,
  spec: ContainerSpec,
  options: { signal?: AbortSignal; onContainer?: (id: string) => void; taps?: ContainerOutputTaps } = {},
): Promise<LaunchedContainer> {
  if (!(spec.wallClockSeconds > 0)) {
    throw new JunoError('E_USAGE', `invalid wall-clock limit for a container: ${spec.wallClockSeconds} s`, {
      hint: 'give a positive number of seconds',
    });
  }
  const t0 = Date.now();
  const max = spec.maxOutputBytes ?? 4 * 1024 * 1024;
  const stdout = new TailBuffer(max);
  const stderr = new TailBuffer(max);
  const stdin = Boolean(spec.waitForGo);
  let container: Docker.Container;
  try {
    container = await docker.createContainer(planCreateOptions(spec));
  } catch (e) {
    throw engineError(e, spec.image, 'create a container');
  }
  options.onContainer?.(container.id);

  let timedOut = false;
  let aborted = false;
  let timer: LongTimer | undefined;
  let setupMs = 0;
  let started = 0;
  let wentAt = 0;
  const killer = new ContainerKiller(container);
  const killAndWatch = () => killer.killAndWatch();
  const onAbort = () => {
    aborted = true;
    killAndWatch();
  };
  let stream: NodeJS.ReadWriteStream;
  let waited: Promise<number | null>;
  let drained: Promise<void>;
  try {
    ({ stream, drained, waited } = await attachAndWait(docker, container, stdin, stdout, stderr, options.taps));
    if (options.signal?.aborted) aborted = true;
    else {
      await container.start();
      started = Date.now();
      setupMs = started - t0;
    }
  } catch (e) {
    await ensureRemoved(docker, container).catch(() => undefined);
    if (e instanceof JunoError) throw e;
    throw engineError(e, spec.image, 'start a container');
  }
  const go = () => {
    if (wentAt || aborted) return;
    wentAt = Date.now();
    // Limits come from instances and flags: beyond 24.8 days a plain setTimeout would fire at once.
    timer = startLongTimer(spec.wallClockSeconds * 1000, () => {
      timedOut = true;
      killAndWatch();
    });
    // On a line of its own: some engines deliver the attach request's body on stdin first.
    if (stdin) stream.write(`\n${spec.goLine ?? 'go'}\n`);
  };
  let reportExit!: (o: ContainerOutcome) => void;
  const exitedOutcome = new Promise<ContainerOutcome>((resolve) => (reportExit = resolve));
  const done = (async (): Promise<ContainerOutcome> => {
    let exited = 0;
    let exitCode: number | null = null;
    const outcomeNow = (): ContainerOutcome => ({
      exitCode: exitCode ?? exitCodeFromMarker(stdout.text()),
      stdout: stdout.text(),
      stderr: stderr.text(),
      timedOut,
      aborted,
      setupMs,
      waitMs: wentAt && started ? Math.max(0, wentAt - started) : 0,
      runMs: started ? exited - (wentAt || started) : 0,
      teardownMs: 0,
    });
    try {
      if (aborted) {
        // Cancelled before it started: it never runs (and is removed below).
        return { exitCode: null, stdout: '', stderr: '', timedOut: false, aborted, setupMs, runMs: 0, teardownMs: 0 };
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      exitCode = await Promise.race([waited, killer.forcedEnd.then(() => null)]);
      if (exitCode === null) {
        // wait() lost a race with auto-removal: the attach stream ends when the container does.
        await Promise.race([drained, killer.forcedEnd]);
        exited = Date.now();
      } else {
        exited = Date.now();
        // Some engines end the wait a moment before the last output arrives.
        await Promise.race([drained, delay(2000)]);
      }
      // The result is known: the caller may go on while the container is removed.
      reportExit(outcomeNow());
    } catch (e) {
      if (e instanceof JunoError) throw e;
      throw engineError(e, spec.image, 'run a container');
    } finally {
      timer?.cancel();
      options.signal?.removeEventListener('abort', onAbort);
      if (!exited) exited = Date.now();
      if (stdin) stream.end();
      // A stream the engine left open would hold its socket (and the process) forever.
      if (killer.watching) (stream as NodeJS.ReadWriteStream & { destroy?: () => void }).destroy?.();
      await ensureRemoved(docker, container);
    }
    // The same outcome as reported at exit, now with the output that arrived since and the removal's time.
    return { ...outcomeNow(), teardownMs: Date.now() - exited };
  })();
  // Without waitForGo there is nothing to wait for.
  if (!stdin) go();
  // A failure or an early return settles `exited` with whatever `done` settles with.
  done.then(reportExit, () => undefined);
  const exitedOrFailed = Promise.race([exitedOutcome, done.then(() => exitedOutcome)]);
  // Handled here too: a container started ahead may never be asked for its outcome.
  exitedOrFailed.catch(() => undefined);
  done.catch(() => undefined);
  return {
    id: container.id,
    go,
    exited: exitedOrFailed,
    done,
    ...(stdin ? { stdin: stream } : {}),
    kill: () => {
      aborted = true;
      killAndWatch();
    },
  };
}

/**
 * Attach to the container's output (and stdin when it waits for "go") and wait
 * for its exit, before it starts: neither output nor the exit can be missed
 * however short the run (and however fast auto-removal is). `drained` settles
 * when the output stream ends; `waited` with the exit status, null when the
 * engine could not tell.
 */
async function attachAndWait(
  docker: Docker,
  container: Docker.Container,
  stdin: boolean,
  stdout: TailBuffer,
  stderr: TailBuffer,
  taps: ContainerOutputTaps = {},
): Promise<{ stream: NodeJS.ReadWriteStream; drained: Promise<void>; waited: Promise<number | null> }> {
  const stream = (await container.attach({
    stream: true,
    stdout: true,
    stderr: true,
    ...(stdin ? { stdin: true, hijack: true } : {}),
  })) as NodeJS.ReadWriteStream;
  const drained = new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  docker.modem.demuxStream(stream, stdout.writable(taps.stdout), stderr.writable(taps.stderr));
  if (taps.stdout || taps.stderr) {
    // The taps end with the container's output (a reader of lines sees its last one).
    void drained.then(() => endTaps(taps));
  }
  const waited = (container.wait({ condition: 'next-exit' }) as Promise<{ StatusCode?: number }>).then(
    (r) => (typeof r?.StatusCode === 'number' ? r.StatusCode : null),
    () => null,
  );
  return { stream, drained, waited };
}

/** The engine's create request for `spec`: no network, auto-removed, its limits, its mounts and nothing else of the host. */
export function planCreateOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
  const stdin = Boolean(spec.waitForGo);
  return {
    Image: spec.image,
    Cmd: spec.cmd,
    ...(spec.user !== undefined ? { User: spec.user } : {}),
    ...(spec.env ? { Env: spec.env } : {}),
    ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
    Labels: { [CONTAINER_LABEL]: 'run', ...spec.labels },
    NetworkDisabled: true,
    AttachStdin: stdin,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    OpenStdin: stdin,
    // The toolchain's attachment is the only writer: when it ends, stdin closes.
    StdinOnce: stdin,
    HostConfig: {
      AutoRemove: true,
      NetworkMode: 'none',
      Mounts: (spec.mounts ?? []).map((m) => ({
        Type: 'bind' as const,
        Source: m.source,
        Target: m.target,
        ReadOnly: m.readOnly,
      })),
      ...(spec.memoryBytes ? { Memory: spec.memoryBytes, MemorySwap: spec.memoryBytes } : {}),
      ...(spec.nanoCpus ? { NanoCpus: spec.nanoCpus } : {}),
      ...(spec.pidsLimit ? { PidsLimit: spec.pidsLimit } : {}),
      ...(spec.capDrop ? { CapDrop: spec.capDrop } : {}),
      ...(spec.capAdd ? { CapAdd: spec.capAdd } : {}),
      ...(spec.readonlyRootfs ? { ReadonlyRootfs: true } : {}),
      ...(spec.tmpfs
        ? {
            Tmpfs: Object.fromEntries(
              Object.entries(spec.tmpfs).map(([p, bytes]) => [p, `rw,nosuid,nodev,size=${bytes},mode=1777`]),
            ),
          }
        : {}),
      ...(spec.shmBytes ? { ShmSize: spec.shmBytes } : {}),
      SecurityOpt: [
        'no-new-privileges',
        ...(spec.seccomp ? [`seccomp=${spec.seccomp}`] : []),
        ...(spec.securityOpt ?? []),
      ],
    },
  };
}
/**
 * Kills a container and, once killed, watches it through the engine: an
 * engine can leave its answers to wait and attach open after the container is
 * gone (Podman, after a fork bomb hit the pids limit), and the run would hang.
 * `forcedEnd` settles once the engine says the container no longer runs (plus a
 * moment for output still in flight); they are not waited for beyond that.
 */
class ContainerKiller {
  watching = false;
  readonly forcedEnd: Promise<void>;
  private forceEnd!: () => void;

  constructor(private readonly container: Docker.Container) {
    this.forcedEnd = new Promise<void>((resolve) => (this.forceEnd = resolve));
  }

  killAndWatch(): void {
    void this.kill();
    if (this.watching) return;
    this.watching = true;
    // Watching that fails (the engine's client itself broke) ends the run as forced: it must never hang it.
    this.watch().catch(() => this.forceEnd());
  }

  private kill(): Promise<unknown> {
    return this.container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
  }

  private async watch(): Promise<void> {
    for (;;) {
      await delay(1000);
      const running = await Promise.race([
        this.container.inspect().then(
          (info) => info.State?.Running === true,
          (e: unknown) => statusOf(e) !== 404,
        ),
        delay(10_000).then(() => true),
      ]);
      if (!running) break;
      void this.kill();
    }
    // Output still in flight gets a moment to arrive through the attach stream.
    await delay(2000);
    this.forceEnd();
  }
}

/** Run `spec` in a fresh container and collect its output (launchContainer, at once). */
export async function runContainer(
  docker: Docker,
  spec: ContainerSpec,
  options: { signal?: AbortSignal; onContainer?: (id: string) => void } = {},
): Promise<ContainerOutcome> {
  const launched = await launchContainer(docker, spec, options);
  launched.go();
  return launched.done;
}

/** `junobench-container: exit=N …`, printed by the sandbox wrapper as its last line on stdout. */
function exitCodeFromMarker(stdout: string): number | null {
  const m = /(?:^|\n)junobench-container: exit=(\d+)[^\n]*\n?$/.exec(stdout);
  return m ? Number(m[1]) : null;
}

/**
 * Remove the container (force) and wait until the engine no longer lists it.
 * With AutoRemove the engine may be removing it already: "no such container"
 * and "removal in progress" both mean it is on its way out.
 */
export async function ensureRemoved(docker: Docker, container: Docker.Container, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await container.remove({ force: true, v: true });
    } catch (e) {
      if (statusOf(e) !== 404 && statusOf(e) !== 409 && statusOf(e) !== 500)
        throw engineError(e, '', 'remove a container');
    }
    try {
      await docker.getContainer(container.id).inspect();
    } catch (e) {
      if (statusOf(e) === 404) return;
    }
    if (Date.now() > deadline) {
      throw new JunoError(
        'E_RUNTIME',
        `container ${container.id.slice(0, 12)} could not be removed within ${timeoutMs / 1000} s`,
        {
          hint: `remove it by hand (podman rm -f ${container.id.slice(0, 12)}) and check the engine's log`,
        },
      );
    }
    await delay(200);
  }
}

export function statusOf(e: unknown): number | undefined {
  const s = (e as { statusCode?: unknown } | null)?.statusCode;
  return typeof s === 'number' ? s : undefined;
}

/** The engine's own message for a failed API call. */
export function engineMessage(e: unknown): string {
  const err = e as { json?: { message?: string; cause?: string } | null; reason?: string; message?: string };
  const text = err?.json?.message ?? err?.message ?? String(e);
  return text.replace(/^\(HTTP code \d+\) [a-z ]+ - /, '').trim();
}

function engineError(e: unknown, image: string, what: string): JunoError {
  const status = statusOf(e);
  const msg = engineMessage(e);
  if (status === 404 && image && /image|no such/i.test(msg)) {
    return new JunoError('E_ENV_ENGINE', `image ${image} is not in the container engine (${msg})`, {
      hint: 'build it with `junobench image build --profile debian` (it prints the tag), or pass the tag of an image that exists',
      cause: e,
    });
  }
  const code = (e as { code?: string } | null)?.code;
  if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ECONNRESET') {
    return new JunoError('E_ENV_ENGINE', `the container engine stopped answering while trying to ${what} (${msg})`, {
      hint: 'check the engine (run `sh tools/setup-engine.sh` to restart the podman service), then retry',
      cause: e,
    });
  }
  return new JunoError('E_RUNTIME', `the container engine could not ${what}${image ? ` from ${image}` : ''}: ${msg}`, {
    cause: e,
  });
}

/** End the taps (once: a container whose stream the engine leaves open is ended by its outcome instead). */
export function endTaps(taps: ContainerOutputTaps): void {
  for (const t of [taps.stdout, taps.stderr]) if (t && !t.writableEnded) t.end();
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref?.());
}

/** Keeps the last `max` bytes written: a chatty notebook cannot exhaust memory. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.max && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  /** A stream into the tail; `tap` gets every chunk too, as it arrives. */
  writable(tap?: Writable): Writable {
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
        this.push(b);
        if (tap && !tap.writableEnded) tap.write(b);
        cb();
      },
    });
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    return (all.length > this.max ? all.subarray(all.length - this.max) : all).toString('utf8');
  }
}
