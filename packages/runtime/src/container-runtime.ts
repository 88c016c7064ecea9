import { randomBytes, randomInt } from 'node:crypto';
import os from 'node:os';
import type Docker from 'dockerode';
import { JunoError, type RunResult, type RuntimeIdentity } from '@junobench/core';
import type { NotebookRun, RunOptions, RunStream, Runtime, StreamOptions } from './runtime.js';
import { CONTAINER_LABEL, ensureRemoved, runContainer } from './container-exec.js';
import {
  CONTAINER_LAYOUT,
  checkNotebookPath,
  defaultWallClockSeconds,
  parseMemorySize,
  planContainerRun,
  type ContainerRunSettings,
} from './container-sandbox.js';
import { ContainerBatch } from './container-batch.js';
import { SlotPool, SlotSessions, runInSlots } from './container-slots.js';
import { ContainerSetup } from './container-setup.js';
import { startOwnerWatchdog } from './container-owner-watchdog.js';
import { createRunFolder, currentOwner, isOwnerGone, type RunFolder } from './run-folder.js';
import { hashRunnerFiles } from './runner-path.js';
import { createMessageKey } from './parse-runner-message.js';
import { ProbeCache, modulesToProbe, packagesFrom, type ProbeRecord } from './probe-cache.js';

export interface ContainerRuntimeOptions {
  /** A dockerode client (see connectDockerEngine); injected, never created here. */
  docker: Docker;
  /** Benchmark image tag or id, e.g. from curated/image.json. */
  image: string;
  /** Memory limit per notebook container (no swap beyond it): bytes or `4g`, `512m`… Default 4g. */
  memory?: number | string;
  /** Size of each scratch file system of a container (/work, /tmp, /var/tmp, /dev/shm; in memory, so it counts toward `memory` too). Default 4g. */
  disk?: number | string;
  /** CPUs per notebook container. Default 1. */
  cpus?: number;
  /** Default number of containers at once when run() is not told. Default 1. */
  jobs?: number;
  /** Processes/threads per container (the pids cgroup). Default 1024. */
  pidsLimit?: number;
  /** Threads per kernel for the OpenMP/BLAS/torch pools. Default 1. */
  threads?: number;
  /** Seconds a kernel may take to start. Default 60. */
  startupTimeoutSeconds?: number;
  /** Seconds beyond timeoutSeconds + start-up before the container is killed (slots: its runner taken for hung). Default 30. */
  graceSeconds?: number;
  /** Replaces the wall-clock limit computed from the run's timeouts (tests of the kill path); fresh containers only. */
  wallClockSeconds?: (run: NotebookRun) => number;
  /** Interpreter inside the image. Default `python3`. */
  python?: string;
  /** Runner path inside the image. */
  runnerPath?: string;
  /** The image's notebook user (its home is copied for each run). */
  user?: string;
  /**
   * Where probe results are kept between runtimes (probe-cache.ts), keyed by
   * the image id, which names its content; absent: every runtime probes anew
   * in a throwaway container.
   */
  probeCacheDir?: string;
  /**
   * Fork kernels (default): one long-lived slot container per job forks every
   * notebook's kernel from a zygote into a sandbox of its own
   * (container-slots.ts). False: every notebook in a fresh container of its
   * own, whose kernel is launched there (container-batch.ts).
   */
  fork?: boolean;
}

/** Seconds a stream's slot may wait with nothing to do before its container ends (the local runtime's default too). */
const STREAM_IDLE_SECONDS = 300;

/** Label naming the process that started a container (`<host>:<pid>:<start time>`): stale ones are removed. */
export const OWNER_LABEL = 'org.junobench.owner';
/** Notebook uids are drawn from here, one per container, never the image user's. */
const UID_RANGE = [200_000, 1_200_000] as const;

/**
 * The docker runtime (docs/verify.md, "Runtimes"): every NotebookRun in a fresh container
 * of the benchmark image, started through the Docker Engine API — no network,
 * memory (without swap), CPU and process limits, a read-only root with
 * size-limited scratch (/work, /tmp, /var/tmp, /dev/shm), its own uid (no per-user limit shared
 * with other containers), the instance folder mounted read-only and copied to
 * /work, no other host path, all capabilities dropped for the notebook,
 * auto-removed, and killed at a wall-clock limit. A run whose container is
 * killed for memory or dies is a `kernel-died` result with the reason; engine
 * failures are errors.
 *
 * Containers are never reused, but each job starts the next notebook's
 * container while the current one runs: the copy, the kernel start and the
 * notebook's imports happen there before its turn, and the container waits
 * for "go" on its stdin before the first cell. If the toolchain dies, the
 * stdin closes and the container ends. Whatever ignores its stdin (the image
 * probe's container) goes too: a watchdog process removes every container of
 * this process the moment it dies (container-owner-watchdog.ts), and
 * containers of a dead owner still known to the engine are removed when the
 * next runtime starts.
 */
export function createContainerRuntime(options: ContainerRuntimeOptions): Runtime {
  const { docker, image } = options;
  const forked = options.fork !== false;
  const { settings, session } = planRuntimeSettings(options);
  const { threads } = settings;
  let uid = randomInt(UID_RANGE[0], UID_RANGE[1]);
  const nextUid = () => (uid = uid + 1 >= UID_RANGE[1] ? UID_RANGE[0] : uid + 1);
  const probes = new Map<string, Promise<RuntimeIdentity>>();
  let runnerChecked = false;
  const setup = new ContainerSetup(docker, image, settings, removeStaleContainers);
  const resolveImageId = () => setup.resolveImageId();
  const live = new Set<string>();
  const closing = new AbortController();
  let staging: RunFolder | undefined;
  const stagingDir = (): string => (staging ??= createRunFolder(os.tmpdir(), { anonymous: true })).dir;
  // Before the first container: what this process creates goes the moment it dies, however it dies.
  const watchOwner = () => startOwnerWatchdog(docker, `${OWNER_LABEL}=${settings.labels![OWNER_LABEL]}`);

  const cache = options.probeCacheDir ? new ProbeCache(options.probeCacheDir) : undefined;
  const identify = (imageId: string, record: ProbeRecord, mods: string[]): RuntimeIdentity => ({
    kind: 'docker',
    image,
    imageId,
    python: record.python,
    ...(record.pythonVersion ? { pythonVersion: record.pythonVersion } : {}),
    packages: packagesFrom(record, mods) ?? {},
    kernelStart: forked ? 'fork' : 'launch',
    threads,
  });
  const probeModules = async (mods: string[]): Promise<RuntimeIdentity> => {
    const imageId = await resolveImageId();
    // The image id names the image's content: what imported in it once always does. A record counts only while
    // its runner is ours (the probe checks that; a record of it is as good).
    const known = cache ? await cache.read(settings.python, `docker:${imageId}`) : undefined;
    const usable = known && known.runner === (await hashRunnerFiles()) ? known : undefined;
    const missing = modulesToProbe(usable, mods);
    if (usable && missing.length === 0) return identify(imageId, usable, mods);
    await setup.sweep();
    await setup.prepareSeccomp();
    const probed = await probeImage(docker, image, missing, settings);
    const record: ProbeRecord = { ...probed, packages: { ...usable?.packages, ...probed.packages } };
    if (cache) await cache.write(settings.python, `docker:${imageId}`, record);
    return identify(imageId, record, mods);
  };
  const describe = (modules: readonly string[]): Promise<RuntimeIdentity> => {
    const mods = [...new Set(modules)].sort();
    const key = mods.join(',');
    watchOwner();
    let p = probes.get(key);
    if (!p) {
      p = probeModules(mods).then((id) => {
        runnerChecked = true;
        return id;
      });
      probes.set(key, p);
      p.catch(() => probes.delete(key));
    }
    return p;
  };

  const checkRun = (r: NotebookRun): void => {
    if (forked) checkNotebookPath(r);
    else planContainerRun(r, settings, createMessageKey());
  };

  /** What comes before the first container: the image, stale containers swept, the seccomp profiles, the runner checked. */
  const prepare = async (): Promise<void> => {
    watchOwner();
    await resolveImageId();
    await setup.sweep();
    await setup.prepareSeccomp();
    // A probe checks the image's runner against ours (see probeImage); callers usually describe() first.
    if (!runnerChecked) await describe([]);
  };

  const run = async (runs: readonly NotebookRun[], opts: RunOptions = {}): Promise<RunResult[]> => {
    if (runs.length === 0) return new Array<RunResult>(0);
    // A run the sandbox cannot take is refused before any container starts (a slot copies the instance: any path).
    for (const r of runs) checkRun(r);
    await prepare();
    const jobs = Math.max(1, Math.min(opts.jobs ?? options.jobs ?? 1, runs.length));
    if (forked) return runInSlots(runs, opts, jobs, () => slots.session(opts.signal));
    const batch = new ContainerBatch(
      { docker, settings, stagingDir, nextUid, live, closing: closing.signal },
      runs,
      opts,
    );
    return batch.run(jobs);
  };

  const slots = new SlotSessions(
    { docker, settings, nextUid, live, signal: closing.signal },
    options.graceSeconds ?? 30,
  );

  const pools = new Set<SlotPool>();
  // Runs as they arrive (a queue worker's jobs), on slot containers that outlive each run: forked kernels only.
  const stream = (sopts: StreamOptions = {}): RunStream => {
    const idleMs = Math.max(0, sopts.idleSeconds ?? STREAM_IDLE_SECONDS) * 1000;
    const pool = new SlotPool(Math.max(1, sopts.jobs ?? 1), () => slots.session(sopts.signal, idleMs));
    pools.add(pool);
    let prepared: Promise<void> | undefined;
    return {
      submit: async (r) => {
        checkRun(r);
        await (prepared ??= prepare());
        return pool.submit(r);
      },
      end: async () => {
        await pool.end();
        pools.delete(pool);
      },
      get runners() {
        return pool.runners;
      },
    };
  };

  const close = async (): Promise<void> => {
    closing.abort();
    for (const p of pools) p.cancel();
    pools.clear();
    await slots.close();
    // Anything still known to the engine from this runtime goes (e.g. after a crash mid-run).
    let leftovers: Docker.ContainerInfo[] = [];
    try {
      leftovers = await docker.listContainers({
        all: true,
        filters: { label: [`${CONTAINER_LABEL}.session=${session}`] },
      });
    } catch {
      leftovers = [];
    }
    const ids = new Set([...live, ...leftovers.map((c) => c.Id)]);
    await Promise.all([...ids].map((id) => ensureRemoved(docker, docker.getContainer(id)).catch(() => undefined)));
    live.clear();
    setup.release();
    staging?.remove();
    staging = undefined;
  };

  // The image id is the whole environment: interpreter, packages and runner; threads can change results.
  const fingerprint = async (): Promise<string> =>
    `docker:${await resolveImageId()}:threads=${threads}${forked ? ':fork' : ''}`;

  return { kind: 'docker', sandboxed: true, describe, fingerprint, run, ...(forked ? { stream } : {}), close };
}

/** The runtime's container settings from its options (bad limits are E_USAGE), and its session label. */
function planRuntimeSettings(options: ContainerRuntimeOptions): { settings: ContainerRunSettings; session: string } {
  const startup = options.startupTimeoutSeconds ?? 60;
  const grace = options.graceSeconds ?? 30;
  const cpus = options.cpus ?? 1;
  if (!(cpus > 0) || !Number.isFinite(cpus)) {
    throw new JunoError('E_USAGE', `invalid CPU limit ${cpus}`, {
      hint: 'give a positive number of CPUs, e.g. 1 or 0.5',
    });
  }
  const threads = options.threads ?? 1;
  if (!Number.isInteger(threads) || threads < 1) {
    throw new JunoError('E_USAGE', `invalid number of threads per kernel: ${threads}`, {
      hint: 'give a whole number ≥ 1, e.g. --threads 1',
    });
  }
  // One label value per runtime object: close() can find exactly its own containers.
  const session = randomBytes(6).toString('hex');
  const settings: ContainerRunSettings = {
    image: options.image,
    memoryBytes: parseMemorySize(options.memory ?? '4g'),
    diskBytes: parseMemorySize(options.disk ?? '4g'),
    nanoCpus: Math.round(cpus * 1e9),
    pidsLimit: options.pidsLimit ?? 1024,
    threads,
    python: options.python ?? 'python3',
    runnerPath: options.runnerPath ?? CONTAINER_LAYOUT.runner,
    user: options.user ?? CONTAINER_LAYOUT.user,
    startupTimeoutSeconds: startup,
    wallClockSeconds: options.wallClockSeconds ?? ((run) => defaultWallClockSeconds(run, startup, grace)),
    labels: { [`${CONTAINER_LABEL}.session`]: session, [OWNER_LABEL]: currentOwner() },
  };
  return { settings, session };
}

/**
 * Remove the containers whose owner (OWNER_LABEL) was a process of this host
 * that is gone: what a killed toolchain left. Returns their ids.
 */
export async function removeStaleContainers(docker: Docker): Promise<string[]> {
  let all: Docker.ContainerInfo[];
  try {
    all = await docker.listContainers({ all: true, filters: { label: [OWNER_LABEL] } });
  } catch {
    return [];
  }
  const stale = all.filter((c) => isOwnerGone(c.Labels?.[OWNER_LABEL] ?? ''));
  await Promise.all(stale.map((c) => ensureRemoved(docker, docker.getContainer(c.Id)).catch(() => undefined)));
  return stale.map((c) => c.Id);
}

/** Interpreter, kernel stack and module versions inside the image, from the runner's probe in a throwaway container. */
async function probeImage(
  docker: Docker,
  image: string,
  modules: string[],
  settings: ContainerRunSettings,
): Promise<ProbeRecord> {
  const outcome = await runContainer(docker, {
    image,
    cmd: [settings.python, settings.runnerPath, 'probe', ...modules],
    memoryBytes: settings.memoryBytes,
    nanoCpus: settings.nanoCpus,
    pidsLimit: settings.pidsLimit,
    capDrop: ['ALL'],
    readonlyRootfs: true,
    tmpfs: { '/tmp': settings.diskBytes },
    ...(settings.seccomp ? { seccomp: settings.seccomp } : {}),
    labels: { 'org.junobench.probe': 'describe', ...settings.labels },
    wallClockSeconds: 300,
  });
  const line = outcome.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'))
    .pop();
  let probe:
    { executable?: string; version?: string; packages?: Record<string, string | null>; runner?: string } | undefined;
  try {
    probe = line ? JSON.parse(line) : undefined;
  } catch {
    probe = undefined;
  }
  if (!probe || outcome.exitCode !== 0) {
    throw new JunoError(
      'E_RUNTIME',
      `the runner's probe failed in image ${image} (exit ${outcome.exitCode}): ${outcome.stderr.trim().slice(-800)}`,
      {
        hint: 'rebuild the image with `junobench image build`; it must contain the runner at ' + settings.runnerPath,
      },
    );
  }
  // The toolchain and the runner in the image speak one protocol version: an
  // image built by another toolchain commit (a release's pinned image, an old
  // tag) would fail every notebook as `kernel-died` with an argparse message.
  const expected = await hashRunnerFiles();
  if (probe.runner !== expected) {
    throw new JunoError(
      'E_ENV_IMAGE',
      `image ${image} holds ${probe.runner ? `runner ${probe.runner.slice(0, 12)}` : 'a runner older than this check'}, but this toolchain's runner is ${expected.slice(0, 12)}: the two do not speak the same protocol`,
      {
        hint: 'build the image from this checkout with `junobench image build` (it prints the tag), or check out the toolchain commit that built the image (a release names it in manifest.json, toolchain.commit)',
      },
    );
  }
  const packages: Record<string, string | null> = {};
  for (const m of modules) packages[m] = probe.packages?.[m] ?? null;
  return {
    python: probe.executable ?? settings.python,
    ...(probe.version ? { pythonVersion: probe.version } : {}),
    packages,
    runner: probe.runner,
  };
}
