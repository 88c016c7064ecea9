import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { chmod, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import type Docker from 'dockerode';
import type { RunPlan, RunResult } from '@junobench/core';
import {
  endTaps,
  engineMessage,
  launchContainer,
  type ContainerSpec,
  type LaunchedContainer,
} from './container-exec.js';
import { CONTAINER_LAYOUT, type ContainerRunSettings } from './container-sandbox.js';
import { SANDBOX_LAYOUT, insideRunFolder } from './local-sandbox.js';
import { createMessageKey } from './parse-runner-message.js';
import type { RunnerCommand, RunnerLauncher, RunnerSettings } from './runner-command.js';
import type { LiveRunner, RunnerChannel } from './runner-process.js';
import { RunSession } from './run-session.js';
import { failedResult } from './runner-driver.js';
import { createRunFolder, type RunFolder } from './run-folder.js';
import { formatBpfProgram, planLocalSeccompProgram } from './local-seccomp.js';
import type { NotebookRun, RunOptions } from './runtime.js';

/**
 * Slot containers (docs/verify.md, "Runtimes"): one long-lived container per
 * job slot runs the runner (`serve`) with its zygotes, and every notebook's
 * kernel is forked into a sandbox of its own inside it (nest.py). The
 * interpreter starts and the libraries are imported once per slot, not once
 * per notebook.
 *
 * The container sees the runtime's run folder ("box": the scratch copies the
 * runner reads its plans' notebooks from) read-only at /run/junobench, a
 * writable in-memory folder of the runner's own under it (connection files,
 * zygote sockets), and nothing else of the host. It runs as a uid of its own,
 * with no capability, no network, its memory, CPU and process limits and the
 * nesting seccomp profile (seccomp-profile.ts). Each kernel sees its scratch
 * copy read-only at /instance and a writable copy of it at /work, as in a
 * container of its own.
 */

/** Where each kernel's seccomp program is in the box (written once per runtime). */
export const KERNEL_SECCOMP_FILE = 'kernel-seccomp.bpf';
/** The runner's own writable folder (connection files, zygote sockets): small, in memory. */
const RUNNER_TMP_BYTES = 64 * 1024 ** 2;
/** A slot container lives as long as its runner: its wall clock is the driver's watchdog, this only a backstop. */
const SLOT_WALL_CLOCK_SECONDS = 30 * 24 * 3600;

export interface SlotSettings {
  docker: Docker;
  /** The runtime's container settings (seccompNesting and engine resolved before the first slot). */
  settings: ContainerRunSettings;
  /** A uid of its own for each slot container. */
  nextUid(): number;
  /** Containers alive: the runtime's close removes them. */
  live: Set<string>;
  signal?: AbortSignal;
}

/** The options the runner's `serve --nest-json` takes (nest.py, parse_nest_options). */
export function planNestOptions(settings: Pick<ContainerRunSettings, 'diskBytes'>, seccomp: boolean): object {
  return {
    hide: [SANDBOX_LAYOUT.run],
    workdir: CONTAINER_LAYOUT.workdir,
    instance: CONTAINER_LAYOUT.instance,
    home: CONTAINER_LAYOUT.home,
    home_from: `/home/${CONTAINER_LAYOUT.user}`,
    disk: settings.diskBytes,
    ...(seccomp ? { seccomp: path.posix.join(SANDBOX_LAYOUT.run, KERNEL_SECCOMP_FILE) } : {}),
  };
}

/** The slot container that runs one runner over `box` (its folder `runnerTmp`). Pure. */
export function planSlotContainer(
  settings: ContainerRunSettings,
  jobs: number,
  runnerTmp: string,
  box: string,
  uid: number,
  kernelSeccomp: boolean,
): ContainerSpec {
  const tmpInside = insideRunFolder(box, runnerTmp);
  return {
    image: settings.image,
    cmd: [
      settings.python,
      settings.runnerPath,
      'serve',
      '--jobs',
      String(jobs),
      '--threads',
      String(settings.threads),
      '--tmp',
      tmpInside,
      '--authenticate',
      '--nest-json',
      JSON.stringify(planNestOptions(settings, kernelSeccomp)),
    ],
    user: `${uid}:${uid}`,
    env: [
      'PYTHONUNBUFFERED=1',
      'PYTHONDONTWRITEBYTECODE=1',
      'LANG=C.UTF-8',
      `HOME=${CONTAINER_LAYOUT.home}`,
      `USER=${CONTAINER_LAYOUT.user}`,
      `LOGNAME=${CONTAINER_LAYOUT.user}`,
    ],
    workingDir: '/tmp',
    mounts: [{ source: box, target: SANDBOX_LAYOUT.run, readOnly: true }],
    memoryBytes: settings.memoryBytes,
    nanoCpus: settings.nanoCpus,
    pidsLimit: settings.pidsLimit,
    capDrop: ['ALL'],
    readonlyRootfs: true,
    // /work and /instance only as mount points (on a read-only root): each kernel mounts its own there (nest.py).
    tmpfs: {
      '/tmp': settings.diskBytes,
      '/var/tmp': settings.diskBytes,
      [tmpInside]: RUNNER_TMP_BYTES,
      [CONTAINER_LAYOUT.workdir]: 1024 ** 2,
      [CONTAINER_LAYOUT.instance]: 1024 ** 2,
    },
    shmBytes: settings.diskBytes,
    ...(settings.seccompNesting ? { seccomp: settings.seccompNesting } : {}),
    // A kernel's own /proc can be mounted only where the container's is not partly masked.
    securityOpt: [settings.engine === 'docker' ? 'systempaths=unconfined' : 'unmask=/proc/*'],
    waitForGo: true,
    labels: { 'org.junobench.slot': path.basename(runnerTmp), ...settings.labels },
    wallClockSeconds: SLOT_WALL_CLOCK_SECONDS,
  };
}

/** The launcher a RunnerDriver starts its runners with: each in a slot container of its own. */
export function createSlotLauncher(slot: SlotSettings, kernelSeccomp: boolean): RunnerLauncher {
  const specs = new WeakMap<RunnerCommand, ContainerSpec>();
  return {
    plan(_settings: RunnerSettings, jobs: number, runnerTmp: string, box: string): RunnerCommand {
      const spec = planSlotContainer(slot.settings, jobs, runnerTmp, box, slot.nextUid(), kernelSeccomp);
      // Podman gives a tmpfs the mode of the folder it covers ("tmpcopyup"), whatever its mode option says.
      chmodSync(runnerTmp, 0o1777);
      const command: RunnerCommand = {
        file: spec.cmd[0]!,
        args: spec.cmd.slice(1),
        inside: (p) => insideRunFolder(box, p),
      };
      specs.set(command, spec);
      return command;
    },
    start(command: RunnerCommand, live: Set<LiveRunner>): RunnerChannel {
      return new ContainerRunnerChannel(slot, specs.get(command)!, live);
    },
    async prepareScratch(dir: string): Promise<void> {
      await makeReadable(dir);
    },
  };
}

/**
 * A slot container's runner as a RunnerDriver sees it: plans go to its stdin
 * (the key first, on the "go" line), signed messages come from its stdout.
 * Sends before the container runs wait for it.
 */
export class ContainerRunnerChannel implements RunnerChannel {
  readonly key = createMessageKey();
  private stderr = '';
  private killedFor: string | undefined;
  private inputEnded = false;
  private readonly pending: string[] = [];
  private container: LaunchedContainer | undefined;
  private readonly out = new PassThrough();
  private readonly err = new PassThrough();
  private readonly lines: ReturnType<typeof createInterface>;
  private readonly ended: Promise<void>;

  constructor(
    private readonly slot: SlotSettings,
    spec: ContainerSpec,
    live: Set<LiveRunner>,
  ) {
    this.lines = createInterface({ input: this.out });
    this.err.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    const handle: LiveRunner = {
      kill: () => this.kill('the runtime closed'),
      then: (ok, bad) => this.ended.then(ok, bad),
    };
    live.add(handle);
    this.ended = this.launch({ ...spec, goLine: this.key.toString('hex') }).finally(() => {
      endTaps({ stdout: this.out, stderr: this.err });
      live.delete(handle);
    });
  }

  private async launch(spec: ContainerSpec): Promise<void> {
    let id: string | undefined;
    try {
      const c = await launchContainer(this.slot.docker, spec, {
        ...(this.slot.signal ? { signal: this.slot.signal } : {}),
        onContainer: (cid) => {
          id = cid;
          this.slot.live.add(cid);
        },
        taps: { stdout: this.out, stderr: this.err },
      });
      this.container = c;
      if (this.killedFor !== undefined) c.kill();
      c.go();
      for (const line of this.pending.splice(0)) c.stdin!.write(line);
      if (this.inputEnded) c.stdin!.end();
      const outcome = await c.done;
      if (outcome.exitCode !== 0 && outcome.exitCode !== null && this.killedFor === undefined) {
        this.stderr += `\n[junobench] the slot container exited with code ${outcome.exitCode}`;
      }
    } catch (e) {
      this.stderr += `\n[junobench] the slot container failed: ${e instanceof Error ? e.message : engineMessage(e)}`;
    } finally {
      if (id) this.slot.live.delete(id);
    }
  }

  onLine(handler: (line: string) => void): void {
    this.lines.on('line', handler);
  }

  get stderrTail(): string {
    return this.stderr;
  }

  get killed(): boolean {
    return this.killedFor !== undefined;
  }

  send(plan: RunPlan): void {
    const line = `${JSON.stringify(plan)}\n`;
    if (this.container?.stdin) this.container.stdin.write(line);
    else this.pending.push(line);
  }

  endInput(): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    this.container?.stdin?.end();
  }

  kill(reason: string): void {
    if (this.killedFor !== undefined) return;
    this.killedFor = reason;
    this.stderr += `\n[junobench] ${reason}; runner killed`;
    this.container?.kill();
  }

  waitForEnd(): Promise<void> {
    return this.ended;
  }

  dispose(): void {
    this.out.destroy();
    this.err.destroy();
  }
}

/** Folders a+rx, files a+r: the slot container's uid reads what the host's user copied (the box is bound read-only). */
async function makeReadable(dir: string): Promise<void> {
  await chmod(dir, ((await stat(dir)).mode & 0o7777) | 0o555);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await makeReadable(p);
    else if (e.isFile()) await chmod(p, ((await stat(p)).mode & 0o7777) | 0o444);
  }
}

/** Plans in flight per slot: one executing, one whose kernel is forked meanwhile. */
const IN_FLIGHT_PER_SLOT = 2;

interface Slot {
  session: RunSession;
  inFlight: number;
  modules: Set<string>;
}

/** Times a waiting run may be passed over by later ones whose modules a free slot imported already. */
const MAX_PASSED = 4;

interface Waiting {
  /** Later runs taken before it (SlotPool.pick). */
  passed: number;
  run: NotebookRun;
  resolve: (r: RunResult) => void;
  reject: (e: unknown) => void;
}

/**
 * Runs over `jobs` slots, as they arrive: each slot is a session of its own
 * (one runner, so one slot container, at a time), given the next waiting run
 * whenever it has fewer than two in flight, so no run waits behind a long one
 * while another slot is free. Slots open at their first run.
 */
export class SlotPool {
  private readonly waiting: Waiting[] = [];
  private readonly slots: Slot[] = [];
  private ended = false;

  constructor(
    private readonly jobs: number,
    private readonly newSession: () => RunSession,
  ) {}

  /** Resolves with the run's result; rejects only when its slot's runtime failed (not for a notebook's outcome). */
  submit(run: NotebookRun): Promise<RunResult> {
    return new Promise<RunResult>((resolve, reject) => {
      this.waiting.push({ run, resolve, reject, passed: 0 });
      this.dispatch();
    });
  }

  /** No more runs: resolves once every run has its result and every slot's runner is gone. */
  async end(): Promise<void> {
    this.ended = true;
    this.dispatch();
    await Promise.all(this.slots.map((s) => s.session.done.catch(() => undefined)));
  }

  /** Stop: runs waiting and in flight end as `cancelled` (their runners are killed), none is taken any more. */
  cancel(): void {
    this.ended = true;
    for (const w of this.waiting.splice(0)) w.resolve(failedResult(w.run.id, 'cancelled'));
    for (const s of this.slots) s.session.cancel();
  }

  /** Runner processes (slot containers) started so far. */
  get runners(): number {
    return this.slots.reduce((n, s) => n + s.session.runners, 0);
  }

  private dispatch(): void {
    for (let next = this.pick(); next; next = this.pick()) {
      for (const earlier of this.waiting.slice(0, next.index)) earlier.passed++;
      const [w] = this.waiting.splice(next.index, 1);
      const s = next.slot;
      s.modules.add(moduleSetOf(w!.run));
      s.inFlight++;
      s.session.add(w!.run).then(
        (r) => {
          s.inFlight--;
          w!.resolve(r);
          this.dispatch();
        },
        (e: unknown) => {
          s.inFlight--;
          w!.reject(e);
          this.dispatch();
        },
      );
    }
    if (this.ended && this.waiting.length === 0) for (const s of this.slots) s.session.end();
  }

  /**
   * The next run to start and its slot. A slot imports each set of modules once, in a zygote of its own, and an
   * import is seconds of CPU that the other slot's notebook needs on a small machine; so a free slot first takes the
   * earliest waiting run whose set it imported already, even ahead of runs that came before (a notebook's reproduced
   * and fixed versions share a set, and the fixed one would otherwise go to the other slot as soon as it is free and
   * import the set a second time). Then a slot yet to open takes the first run; then a free slot takes the earliest
   * run whose set no slot imported (it is imported once either way), else the first. A slot never idles while a run
   * waits; results go to each run's own promise, so the order they are taken in changes no outcome.
   */
  private pick(): { slot: Slot; index: number } | undefined {
    if (this.waiting.length === 0) return undefined;
    const free = this.slots.filter((s) => s.inFlight < IN_FLIGHT_PER_SLOT);
    const keys = this.waiting.map((w) => moduleSetOf(w.run));
    // A run passed over this often goes next, wherever: a stream of runs of the sets that both slots imported must
    // not hold back a run of another set for ever.
    if (this.waiting[0]!.passed >= MAX_PASSED && free.length > 0) {
      const slot =
        free.find((s) => s.modules.has(keys[0]!)) ?? free.sort((a, b) => a.modules.size - b.modules.size)[0]!;
      return { slot, index: 0 };
    }
    for (let index = 0; index < keys.length; index++) {
      const slot = free.find((s) => s.modules.has(keys[index]!));
      if (slot) return { slot, index };
    }
    if (this.slots.length < this.jobs) {
      const slot: Slot = { session: this.newSession(), inFlight: 0, modules: new Set() };
      this.slots.push(slot);
      return { slot, index: 0 };
    }
    const slot = free.sort((a, b) => a.modules.size - b.modules.size)[0];
    if (!slot) return undefined;
    const fresh = keys.findIndex((k) => !this.slots.some((s) => s.modules.has(k)));
    return { slot, index: Math.max(0, fresh) };
  }
}

/** The modules a run's kernel is forked with (its zygote's key in the runner: jbrunner/zygote.py). */
function moduleSetOf(run: NotebookRun): string {
  return [...new Set(run.prewarm ?? [])].sort().join(',');
}

/** Every run of one run() call over `jobs` slots (a SlotPool given them all); results in the order of the runs. */
export async function runInSlots(
  runs: readonly NotebookRun[],
  opts: RunOptions,
  jobs: number,
  newSession: () => RunSession,
): Promise<RunResult[]> {
  const pool = new SlotPool(Math.max(1, Math.min(jobs, runs.length)), newSession);
  let failure: { error: unknown } | undefined;
  const results = runs.map((run) =>
    pool.submit(run).then((r) => {
      if (failure) return r;
      try {
        opts.onResult?.(r, run);
      } catch (e) {
        // A caller whose onResult throws stops the run (the other notebooks are cancelled): run() rejects with its error.
        failure = { error: e };
        pool.cancel();
      }
      return r;
    }),
  );
  const settled = await Promise.allSettled(results);
  await pool.end();
  for (const s of settled) if (s.status === 'rejected') failure ??= { error: s.reason };
  if (failure) throw failure.error;
  return settled.map((s) => (s as PromiseFulfilledResult<RunResult>).value);
}

/**
 * What a runtime's slots share: the run folder (its box, bound read-only into
 * every slot container, with the kernels' seccomp program), the runners alive
 * and the settings every slot session gets.
 */
export class SlotSessions {
  private folder: RunFolder | undefined;
  private readonly runners = new Set<LiveRunner>();
  private readonly kernelProgram = planLocalSeccompProgram(process.arch, { namespaces: false });

  constructor(
    private readonly slot: SlotSettings,
    private readonly graceSeconds: number,
  ) {}

  /** A session for one slot: its runner runs in a slot container. */
  session(signal?: AbortSignal, idleMs?: number): RunSession {
    const box = this.box();
    const { settings } = this.slot;
    const runnerSettings: RunnerSettings = {
      python: settings.python,
      env: {},
      startupSeconds: settings.startupTimeoutSeconds,
      graceSeconds: this.graceSeconds,
      fork: true,
      threads: settings.threads,
      scratchRoot: box,
      launcher: createSlotLauncher(this.slot, this.kernelProgram !== undefined),
    };
    return new RunSession({
      settings: runnerSettings,
      box,
      live: this.runners,
      jobs: 1,
      ...(idleMs !== undefined ? { idleMs } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  /** Kill every slot's runner and remove the run folder. */
  async close(): Promise<void> {
    for (const r of this.runners) r.kill('SIGTERM');
    await Promise.allSettled([...this.runners]);
    this.runners.clear();
    this.folder?.remove();
    this.folder = undefined;
  }

  private box(): string {
    if (!this.folder) {
      this.folder = createRunFolder(os.tmpdir(), { anonymous: true });
      const box = path.join(this.folder.dir, 'box');
      // Bound read-only into the slot containers, whose uid is not the host user's: readable, not writable.
      mkdirSync(box, { mode: 0o755 });
      chmodSync(box, 0o755);
      if (this.kernelProgram) {
        writeFileSync(path.join(box, KERNEL_SECCOMP_FILE), formatBpfProgram(this.kernelProgram), { mode: 0o644 });
      }
    }
    return path.join(this.folder.dir, 'box');
  }
}
