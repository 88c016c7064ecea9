import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { JunoError, type RunResult, type RuntimeIdentity } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from './runtime.js';
import { CONTAINER_LABEL, ensureRemoved, engineMessage, runContainer, statusOf } from './container-exec.js';
import {
  CONTAINER_LAYOUT,
  defaultWallClockSeconds,
  interpretContainerRun,
  parseMemorySize,
  planContainerRun,
  type ContainerRunSettings,
} from './container-sandbox.js';

export interface ContainerRuntimeOptions {
  /** A dockerode client (see connectDockerEngine); injected, never created here. */
  docker: Docker;
  /** Benchmark image tag or id, e.g. from curated/image.json. */
  image: string;
  /** Memory limit per notebook container (no swap beyond it): bytes or `4g`, `512m`… Default 4g. */
  memory?: number | string;
  /** CPUs per notebook container. Default 1. */
  cpus?: number;
  /** Default number of containers at once when run() is not told. Default 1. */
  jobs?: number;
  /** Processes/threads per container. Default 1024. */
  pidsLimit?: number;
  /** Seconds a kernel may take to start. Default 60. */
  startupTimeoutSeconds?: number;
  /** Seconds beyond timeoutSeconds + start-up before the container is killed. Default 30. */
  graceSeconds?: number;
  /** Replaces the wall-clock limit computed from the run's timeouts (tests of the kill path). */
  wallClockSeconds?: (run: NotebookRun) => number;
  /** Interpreter inside the image. Default `python3`. */
  python?: string;
  /** Runner path inside the image. */
  runnerPath?: string;
  /** User the notebooks run as inside the image. */
  user?: string;
}

/**
 * The docker runtime (DESIGN.md §6): every NotebookRun in a fresh container
 * of the benchmark image, started through the Docker Engine API — no network,
 * memory (without swap), CPU and process limits, the instance folder mounted
 * read-only and copied to a writable scratch /work, no other host path, all
 * capabilities dropped for the notebook, auto-removed, and killed at a
 * wall-clock limit. A run whose container is killed for memory or dies is a
 * `kernel-died` result with the reason; engine failures are errors.
 */
export function createContainerRuntime(options: ContainerRuntimeOptions): Runtime {
  const { docker, image } = options;
  const startup = options.startupTimeoutSeconds ?? 60;
  const grace = options.graceSeconds ?? 30;
  const cpus = options.cpus ?? 1;
  if (!(cpus > 0) || !Number.isFinite(cpus)) {
    throw new JunoError('E_USAGE', `invalid CPU limit ${cpus}`, { hint: 'give a positive number of CPUs, e.g. 1 or 0.5' });
  }
  // One label value per runtime object: close() can find exactly its own containers.
  const session = randomBytes(6).toString('hex');
  const settings: ContainerRunSettings = {
    image,
    memoryBytes: parseMemorySize(options.memory ?? '4g'),
    nanoCpus: Math.round(cpus * 1e9),
    pidsLimit: options.pidsLimit ?? 1024,
    python: options.python ?? 'python3',
    runnerPath: options.runnerPath ?? CONTAINER_LAYOUT.runner,
    user: options.user ?? CONTAINER_LAYOUT.user,
    startupTimeoutSeconds: startup,
    wallClockSeconds: options.wallClockSeconds ?? ((run) => defaultWallClockSeconds(run, startup, grace)),
    labels: { [`${CONTAINER_LABEL}.session`]: session },
  };
  const probes = new Map<string, Promise<RuntimeIdentity>>();
  let imageId: Promise<string> | undefined;
  const live = new Set<string>();
  const closing = new AbortController();

  const resolveImageId = (): Promise<string> => {
    imageId ??= docker
      .getImage(image)
      .inspect()
      .then(
        (info) => info.Id,
        (e: unknown) => {
          imageId = undefined;
          throw statusOf(e) === 404
            ? new JunoError('E_ENV_ENGINE', `image ${image} is not in the container engine`, {
                hint: 'build it with `junobench image build --profile debian` (it prints the tag), or pass the tag of an image that exists',
                cause: e,
              })
            : new JunoError('E_ENV_ENGINE', `cannot inspect image ${image}: ${engineMessage(e)}`, {
                hint: 'check that the engine at DOCKER_HOST answers (`sh tools/setup-engine.sh` starts one)',
                cause: e,
              });
        },
      );
    return imageId;
  };

  const runOne = async (run: NotebookRun, signal: AbortSignal): Promise<RunResult> => {
    const { spec } = planContainerRun(run, settings);
    const outcome = await runContainer(docker, spec, {
      signal,
      onContainer: (id) => live.add(id),
    });
    return interpretContainerRun(run, outcome, settings);
  };

  const describe = (modules: readonly string[]): Promise<RuntimeIdentity> => {
    const mods = [...new Set(modules)].sort();
    const key = mods.join(',');
    let p = probes.get(key);
    if (!p) {
      p = probeImage(docker, image, mods, settings, resolveImageId);
      probes.set(key, p);
      p.catch(() => probes.delete(key));
    }
    return p;
  };

  const run = async (runs: readonly NotebookRun[], opts: RunOptions = {}): Promise<RunResult[]> => {
    const results: RunResult[] = new Array(runs.length);
    if (runs.length === 0) return results;
    await resolveImageId();
    const jobs = Math.max(1, Math.min(opts.jobs ?? options.jobs ?? 1, runs.length));
    // An engine failure in one run stops the others (their containers are killed) before it is thrown.
    const failure = new AbortController();
    const signal = AbortSignal.any([closing.signal, failure.signal, ...(opts.signal ? [opts.signal] : [])]);
    let error: unknown;
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= runs.length) return;
        const r = runs[i]!;
        let result: RunResult;
        if (signal.aborted) {
          result = { id: r.id, status: 'failed', reason: 'cancelled', cells: [], durationMs: 0 };
        } else {
          try {
            result = await runOne(r, signal);
          } catch (e) {
            error ??= e;
            failure.abort();
            return;
          }
        }
        results[i] = result;
        opts.onResult?.(result, r);
      }
    };
    await Promise.all(Array.from({ length: jobs }, () => worker()));
    if (error !== undefined) throw error;
    return results;
  };

  const close = async (): Promise<void> => {
    closing.abort();
    // Anything still known to the engine from this runtime goes (e.g. after a crash mid-run).
    let leftovers: Docker.ContainerInfo[] = [];
    try {
      leftovers = await docker.listContainers({ all: true, filters: { label: [`${CONTAINER_LABEL}.session=${session}`] } });
    } catch {
      leftovers = [];
    }
    const ids = new Set([...live, ...leftovers.map((c) => c.Id)]);
    await Promise.all([...ids].map((id) => ensureRemoved(docker, docker.getContainer(id)).catch(() => undefined)));
    live.clear();
  };

  // The image id is the whole environment: interpreter, packages and runner.
  const fingerprint = async (): Promise<string> => `docker:${await resolveImageId()}`;

  return { kind: 'docker', describe, fingerprint, run, close };
}

/** Interpreter, kernel stack and module versions inside the image, from the runner's probe in a throwaway container. */
async function probeImage(
  docker: Docker,
  image: string,
  modules: string[],
  settings: ContainerRunSettings,
  resolveImageId: () => Promise<string>,
): Promise<RuntimeIdentity> {
  const id = await resolveImageId();
  const outcome = await runContainer(docker, {
    image,
    cmd: [settings.python, settings.runnerPath, 'probe', ...modules],
    memoryBytes: settings.memoryBytes,
    nanoCpus: settings.nanoCpus,
    pidsLimit: settings.pidsLimit,
    capDrop: ['ALL'],
    labels: { 'org.junobench.probe': 'describe', ...settings.labels },
    wallClockSeconds: 300,
  });
  const line = outcome.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'))
    .pop();
  let probe: { executable?: string; version?: string; packages?: Record<string, string | null> } | undefined;
  try {
    probe = line ? JSON.parse(line) : undefined;
  } catch {
    probe = undefined;
  }
  if (!probe || outcome.exitCode !== 0) {
    throw new JunoError('E_RUNTIME', `the runner's probe failed in image ${image} (exit ${outcome.exitCode}): ${outcome.stderr.trim().slice(-800)}`, {
      hint: 'rebuild the image with `junobench image build`; it must contain the runner at ' + settings.runnerPath,
    });
  }
  const packages: Record<string, string | null> = {};
  for (const m of modules) packages[m] = probe.packages?.[m] ?? null;
  return {
    kind: 'docker',
    image,
    imageId: id,
    ...(probe.executable ? { python: probe.executable } : {}),
    ...(probe.version ? { pythonVersion: probe.version } : {}),
    packages,
  };
}
