import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { pack } from 'tar-fs';
import {
  JunoError,
  compareCodePoints,
  noProgress,
  readJsonFile,
  sha256,
  writeFileAtomic,
  writeJsonAtomic,
  type ImageLock,
  type ImageRecord,
  type ProgressListener,
} from '@junobench/core';
import {
  CONTAINER_LAYOUT,
  RUNNER_DIR,
  engineMessage,
  readRunnerFiles,
  runContainer,
  type RunnerFile,
} from '@junobench/runtime';
import {
  normalizeDistribution,
  planImageRecipe,
  requirementName,
  type ImageRecipe,
  type InstanceRequirement,
} from './plan-image-recipe.js';
import { readInstanceRequirements } from './read-instance-requirements.js';
import { readProfile } from './read-profile.js';
import { RUNNER_CONTEXT_NAME, hashImageContent, imageTagFor, renderDockerfile } from './render-dockerfile.js';

export interface ImagePaths {
  /** Project root; the defaults below are inside it. Default: the current folder. */
  root?: string;
  /** Default `<root>/raw/instances`. */
  instancesDir?: string;
  /** Default `<root>/docker` (profiles/, Dockerfile.<profile>, <profile>.lock.json). */
  dockerDir?: string;
  /** The runner's folder (junobench_runner.py and jbrunner/) copied into the image. Default: the runtime package's. */
  runnerDir?: string;
  /**
   * Where Dockerfile.<profile> and <profile>.lock.json are written. Default: dockerDir. A build for other instances
   * (another record) writes its recipe beside its record, never over the project's.
   */
  recipeDir?: string;
}

export interface RenderImageOptions extends ImagePaths {
  /** Profile name (`debian`, `pypi`) or path to a profile .json. */
  profile: string;
  /** Use these instead of reading instancesDir. */
  instances?: readonly InstanceRequirement[];
}

export interface RenderedImage {
  recipe: ImageRecipe;
  dockerfile: string;
  /** Where the Dockerfile was written: `<recipeDir>/Dockerfile.<profile>`. */
  dockerfileFile: string;
  contentHash: string;
  /** Content-hash tag. */
  tag: string;
  profileFile: string;
  /** The runner's files, as copied into the image. */
  runner: RunnerFile[];
}

/** Plan the recipe and write `docker/Dockerfile.<profile>` (atomically); no engine needed. */
export async function renderImage(options: RenderImageOptions): Promise<RenderedImage> {
  const root = path.resolve(options.root ?? '.');
  const dockerDir = path.resolve(root, options.dockerDir ?? 'docker');
  const runnerDir = options.runnerDir ?? RUNNER_DIR;
  const { profile, file: profileFile } = await readProfile(options.profile, { dockerDir });
  const instances =
    options.instances ?? (await readInstanceRequirements(path.resolve(root, options.instancesDir ?? 'raw/instances')));
  const recipe = planImageRecipe(instances, profile, { profileFile: path.relative(root, profileFile) || profileFile });
  const dockerfile = renderDockerfile(recipe);
  let runner: RunnerFile[];
  try {
    runner = await readRunnerFiles(runnerDir);
  } catch (e) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'the Python runner to copy into the image is missing', {
      location: { file: runnerDir },
      hint: 'it ships with @junobench/runtime (packages/runtime/python: junobench_runner.py and jbrunner/); restore it',
      cause: e,
    });
  }
  const runnerHash = sha256(runner.map((f) => `${f.name}\0${sha256(f.content)}`).join('\n'));
  const contentHash = hashImageContent(recipe, dockerfile, runnerHash);
  const dockerfileFile = path.join(path.resolve(root, options.recipeDir ?? dockerDir), `Dockerfile.${recipe.profile}`);
  await writeFileAtomic(dockerfileFile, dockerfile);
  return {
    recipe,
    dockerfile,
    dockerfileFile,
    contentHash,
    tag: imageTagFor(recipe, contentHash),
    profileFile,
    runner,
  };
}

export interface BuildImageOptions extends RenderImageOptions {
  /** A dockerode client (see connectDockerEngine from @junobench/runtime). */
  docker: Docker;
  /** An extra tag for the image, besides the content-hash tag. */
  tag?: string;
  /** Where the record goes. Default `<root>/curated/image.json`. */
  recordFile?: string;
  /** Build even when the content-hash tag exists, without the engine's layer cache. */
  force?: boolean;
  onProgress?: ProgressListener;
  /** Each line the builder prints. */
  onOutput?: (line: string) => void;
}

export interface BuildImageResult {
  tag: string;
  extraTags: string[];
  imageId: string;
  size: number;
  /** The content-hash tag existed: nothing was built. */
  skipped: boolean;
  durationMs: number;
  /** Time spent in the engine's build (0 when skipped). */
  buildMs: number;
  dockerfileFile: string;
  lockFile: string;
  recordFile: string;
  record: ImageRecord;
  recipe: ImageRecipe;
}

/**
 * Build the benchmark image through the Docker Engine API (docs/verify.md, "Container engine"):
 * recipe from the instances and the profile, Dockerfile into docker/, build
 * with the runner as the only other file in the context, tagged
 * `junobench/benchmark:<profile>-<content hash>`. When that tag already
 * exists nothing is built. Afterwards the package versions are read from
 * inside the image into `docker/<profile>.lock.json`, and image id, tag, size
 * and versions are recorded in curated/image.json (both written atomically).
 */
export async function buildImage(options: BuildImageOptions): Promise<BuildImageResult> {
  const t0 = Date.now();
  const progress = options.onProgress ?? noProgress;
  const root = path.resolve(options.root ?? '.');
  const dockerDir = path.resolve(root, options.dockerDir ?? 'docker');
  const recordFile = path.resolve(root, options.recordFile ?? 'curated/image.json');
  const { docker } = options;
  const task = 'image build';

  const rendered = await renderImage(options);
  const { recipe, tag } = rendered;
  const lockFile = path.join(path.resolve(root, options.recipeDir ?? dockerDir), `${recipe.profile}.lock.json`);
  progress({
    task,
    done: 0,
    item: tag,
    message: `recipe: ${recipe.packages.length} packages for ${Object.keys(recipe.modules).length} modules`,
  });

  const existing = options.force ? undefined : await inspectImage(docker, tag);
  let buildMs = 0;
  if (!existing) {
    await checkBaseImage(docker, recipe);
    const b0 = Date.now();
    await runBuild(docker, rendered, { progress, onOutput: options.onOutput, task, noCache: Boolean(options.force) });
    buildMs = Date.now() - b0;
  } else {
    progress({ task, done: 1, total: 1, item: tag, message: 'up to date (content-hash tag exists): not rebuilt' });
  }
  const image = existing ?? (await inspectImage(docker, tag));
  if (!image) {
    throw new JunoError('E_IMAGE_BUILD', `the build reported success but image ${tag} is not in the engine`, {
      hint: 'check the engine (podman images) and build again',
    });
  }

  const extraTags: string[] = [];
  if (options.tag && options.tag !== tag) {
    await tagImage(docker, image.Id, options.tag);
    extraTags.push(options.tag);
  }

  const previous = await readJsonFile<ImageRecord>(recordFile, { schema: 'image-record' }).catch(() => undefined);
  const previousLock = await readJsonFile<ImageLock>(lockFile, { schema: 'image-lock' }).catch(() => undefined);
  let record: ImageRecord;
  if (existing && previous && previous.tag === tag && previous.imageId === image.Id && previousLock?.tag === tag) {
    // Unchanged image, lock and record already describe it: no container needed.
    record = { ...previous, size: image.Size, ...(extraTags.length > 0 ? { extraTags } : {}) };
    if (extraTags.length === 0) delete record.extraTags;
  } else {
    progress({ task, done: 1, total: 1, item: tag, message: 'reading package versions from the image' });
    const versions = await readImageVersions(docker, tag, recipe);
    const lock: ImageLock = {
      profile: recipe.profile,
      tag,
      base: recipe.base,
      python: versions.python,
      recipe: versions.recipe,
      installed: versions.installed,
    };
    await writeJsonAtomic(lockFile, lock, { schema: 'image-lock' });
    const base = await inspectImage(docker, recipe.base);
    record = {
      profile: recipe.profile,
      tag,
      ...(extraTags.length > 0 ? { extraTags } : {}),
      imageId: image.Id,
      size: image.Size,
      recipeHash: rendered.contentHash,
      base: recipe.base,
      ...(base ? { baseImageId: base.Id } : {}),
      python: versions.python,
      packages: versions.recipe,
      modules: versions.modules,
      unavailable: Object.fromEntries(Object.entries(recipe.unavailable).map(([m, u]) => [m, u.reason])),
    };
  }
  await writeJsonAtomic(recordFile, record, { schema: 'image-record' });
  return {
    tag,
    extraTags,
    imageId: image.Id,
    size: image.Size,
    skipped: Boolean(existing),
    durationMs: Date.now() - t0,
    buildMs,
    dockerfileFile: rendered.dockerfileFile,
    lockFile,
    recordFile,
    record,
    recipe,
  };
}

async function inspectImage(docker: Docker, name: string): Promise<Docker.ImageInspectInfo | undefined> {
  try {
    return await docker.getImage(name).inspect();
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return undefined;
    throw new JunoError('E_ENV_ENGINE', `cannot ask the container engine about image ${name}: ${engineMessage(e)}`, {
      hint: 'check that the engine at DOCKER_HOST answers (`sh tools/setup-engine.sh` starts one)',
      cause: e,
    });
  }
}

async function checkBaseImage(docker: Docker, recipe: ImageRecipe): Promise<void> {
  // The offline base cannot be pulled from anywhere: say how to make it rather
  // than let the builder fail on a registry lookup.
  if (!recipe.base.startsWith('junobench/')) return;
  if (await inspectImage(docker, recipe.base)) return;
  throw new JunoError(
    'E_ENV_ENGINE',
    `base image ${recipe.base} of profile "${recipe.profile}" is not in the container engine`,
    {
      hint: 'run `sh tools/setup-engine.sh`: it builds the base image offline with debootstrap and imports it',
    },
  );
}

async function tagImage(docker: Docker, imageId: string, fullTag: string): Promise<void> {
  const at = fullTag.lastIndexOf(':');
  const hasTag = at > fullTag.lastIndexOf('/');
  const repo = hasTag ? fullTag.slice(0, at) : fullTag;
  const tagPart = hasTag ? fullTag.slice(at + 1) : 'latest';
  try {
    await docker.getImage(imageId).tag({ repo, tag: tagPart });
  } catch (e) {
    throw new JunoError('E_USAGE', `cannot tag the image as ${fullTag}: ${engineMessage(e)}`, {
      hint: 'use a tag such as myorg/junobench:1.0',
      cause: e,
    });
  }
}

interface BuildEvent {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

async function runBuild(
  docker: Docker,
  rendered: RenderedImage,
  ctx: { progress: ProgressListener; onOutput: ((line: string) => void) | undefined; task: string; noCache: boolean },
): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'junobench-image-'));
  const output: string[] = [];
  let context: ReturnType<typeof pack> | undefined;
  try {
    await writeFile(path.join(dir, 'Dockerfile'), rendered.dockerfile);
    for (const f of rendered.runner) {
      await mkdir(path.dirname(path.join(dir, RUNNER_CONTEXT_NAME, f.name)), { recursive: true });
      await writeFile(path.join(dir, RUNNER_CONTEXT_NAME, f.name), f.content);
    }
    // Fixed modes and owners in the context: the image content depends on the files, not on the checkout.
    context = pack(dir, {
      entries: ['Dockerfile', RUNNER_CONTEXT_NAME],
      map: (h) => ({ ...h, uid: 0, gid: 0, mode: h.type === 'directory' ? 0o755 : 0o644, mtime: new Date(0) }),
    });
    // An engine can fail the build before it has read the whole context; the folder is then
    // removed below while the packer may still be reading it. That is not the build's error
    // (the engine's is reported): without a listener it would crash the process.
    context.on('error', () => undefined);
    let stream: NodeJS.ReadableStream;
    try {
      stream = await docker.buildImage(context, {
        t: rendered.tag,
        // apt inside the build needs the network; at run time containers have none.
        networkmode: 'host',
        rm: true,
        forcerm: true,
        // --force means from scratch: no layer from an earlier build is reused.
        ...(ctx.noCache ? { nocache: true } : {}),
        labels: {
          'org.junobench.profile': rendered.recipe.profile,
          'org.junobench.content-hash': rendered.contentHash,
        },
      });
    } catch (e) {
      throw new JunoError('E_IMAGE_BUILD', `the container engine refused the build: ${engineMessage(e)}`, { cause: e });
    }
    let step = 0;
    let steps: number | undefined;
    let failure: string | undefined;
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(err) : resolve()),
        (event: BuildEvent) => {
          const err = event.error ?? event.errorDetail?.message;
          if (err) failure = failure ? `${failure}\n${err}` : err;
          const text = (event.stream ?? event.status ?? err ?? '').replace(/\r/g, '');
          for (const line of text.split('\n')) {
            if (!line.trim()) continue;
            output.push(line);
            if (output.length > 400) output.shift();
            ctx.onOutput?.(line);
            const m = /^(?:STEP|Step) (\d+)\/(\d+)/.exec(line);
            if (m) {
              step = Number(m[1]) - 1;
              steps = Number(m[2]);
            }
            ctx.progress({
              task: ctx.task,
              done: step,
              ...(steps ? { total: steps } : {}),
              item: rendered.tag,
              message: line.slice(0, 160),
            });
          }
        },
      );
    }).catch((e: unknown) => {
      failure ??= (e as Error).message;
    });
    if (failure !== undefined) {
      throw new JunoError('E_IMAGE_BUILD', `image build failed (${rendered.tag}): ${failure.trim()}`, {
        location: { file: rendered.dockerfileFile },
        hint: `builder output, last lines:\n    ${output.slice(-15).join('\n    ')}`,
      });
    }
    if (steps) ctx.progress({ task: ctx.task, done: steps, total: steps, item: rendered.tag, message: 'built' });
  } finally {
    context?.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

interface ImageVersions {
  python: string;
  recipe: Record<string, string>;
  installed: Record<string, string>;
  modules: Record<string, string | null>;
}

/** Installed packages and module versions, read from inside the image with short throwaway containers. */
export async function readImageVersions(docker: Docker, tag: string, recipe: ImageRecipe): Promise<ImageVersions> {
  const exec = async (cmd: string[], what: string): Promise<string> => {
    const out = await runContainer(docker, {
      image: tag,
      cmd,
      capDrop: ['ALL'],
      wallClockSeconds: 300,
      labels: { 'org.junobench.probe': 'image' },
    });
    if (out.exitCode !== 0) {
      throw new JunoError(
        'E_IMAGE_BUILD',
        `cannot read ${what} from image ${tag} (exit ${out.exitCode}): ${out.stderr.trim().slice(-600)}`,
      );
    }
    return out.stdout;
  };
  const installed: Record<string, string> = {};
  if (recipe.installer === 'apt') {
    for (const line of (
      await exec(['dpkg-query', '-W', '--showformat=${Package}\\t${Version}\\n'], 'Debian package versions')
    ).split('\n')) {
      const [name, version] = line.split('\t');
      if (name && version) installed[name] = version;
    }
  } else {
    const list = JSON.parse(
      await exec([recipe.python, '-m', 'pip', 'list', '--format=json'], 'pip package versions'),
    ) as { name: string; version: string }[];
    for (const d of list) installed[normalizeDistribution(d.name)] = d.version;
  }
  const recipeVersions: Record<string, string> = {};
  // For pip the system packages are apt's business: the recipe's versions are the pip requirements'.
  const asked =
    recipe.installer === 'apt'
      ? [...recipe.system, ...recipe.kernel, ...recipe.packages]
      : [...recipe.kernel, ...recipe.packages];
  for (const p of asked) {
    const name = recipe.installer === 'apt' ? p : requirementName(p);
    const v = installed[recipe.installer === 'apt' ? p : normalizeDistribution(name)];
    if (v !== undefined) recipeVersions[name] = v;
  }
  const mods = [...new Set(['ipykernel', 'jupyter_client', ...Object.keys(recipe.modules)])].sort(compareCodePoints);
  const probe = JSON.parse(
    await exec([recipe.python, CONTAINER_LAYOUT.runner, 'probe', ...mods], 'module versions'),
  ) as {
    version?: string;
    packages?: Record<string, string | null>;
  };
  return {
    python: probe.version ?? 'unknown',
    recipe: sortObject(recipeVersions),
    installed: sortObject(installed),
    modules: sortObject(probe.packages ?? {}),
  };
}

function sortObject<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => compareCodePoints(a, b)));
}
