import { JunoError, type ReleaseManifest } from '@junobench/core';

export interface ChooseReleaseRuntimeOptions {
  /** `--runtime` when the user gave it; undefined = not given (the choice is this function's). */
  requested?: 'local' | 'docker';
  /** `--image`: overrides the image the release names. */
  image?: string;
  /** Runs go to queue workers: their runtime is `requested` (default local); nothing is probed or pulled here. */
  queue?: boolean;
  /**
   * Why the sandbox cannot run `image` here (no engine answers, the engine lacks the image), or undefined when it
   * can. Injected: the CLI probes the engine at DOCKER_HOST.
   */
  sandboxUnavailable: (image: string) => Promise<string | undefined>;
  /** Pulls a digest reference the engine lacks; returns the reference to run. Injected (the engine and its auth). */
  pullImage: (image: string) => Promise<string>;
  /** The command that rebuilds the release's image from its recipe, for the hint when the release names no image. */
  rebuildCommand: (tag: string) => string;
}

export interface ReleaseRuntimeChoice {
  kind: 'local' | 'docker';
  /** The image to run (docker only): the release's (pushed digest, else tag) or `--image`. */
  image?: string;
  /** Why the notebooks run unsandboxed, when `kind` is local: for the warning the caller shows before running. */
  why?: string;
}

const DIGEST_REFERENCE = /@sha256:[0-9a-f]{64}$/;

/**
 * The runtime `release verify` re-runs a release in. A release is someone
 * else's notebooks, so without `--runtime` it is the sandbox (docker) when an
 * engine answers and has the image the release names, else the local runtime
 * with the reason, for the caller to warn (docs/releases.md, "`release
 * verify`"). With docker, a digest reference is pulled when the engine lacks
 * it; a release that names no image cannot run in docker (exit 3, with the
 * command that rebuilds it from the release's recipe).
 */
export async function chooseReleaseRuntime(
  manifest: ReleaseManifest,
  options: ChooseReleaseRuntimeOptions,
): Promise<ReleaseRuntimeChoice> {
  let image = options.image ?? manifest.image.registry?.reference ?? manifest.image.tag;
  let kind = options.requested ?? 'local';
  let why = '--runtime local';
  if (options.requested === undefined && !options.queue) {
    const unavailable = image ? await options.sandboxUnavailable(image) : 'the release names no image';
    if (unavailable) why = unavailable;
    else kind = 'docker';
  }
  if (kind === 'local') return { kind, why };
  if (options.queue) return { kind, ...(image ? { image } : {}) };
  if (!image) {
    // Not curated/image.json of the folder this runs in: that is a maintainer's, not this release's.
    const tag = `junobench/benchmark:${manifest.version}`;
    throw new JunoError(
      'E_ENV_ENGINE',
      `release ${manifest.version} names no benchmark image (it was prepared before \`junobench image build\`), so --runtime docker has none to run`,
      {
        hint: `build it from the recipe in the release (${options.rebuildCommand(tag)}), then add --image ${tag}; or --no-run for the checks alone`,
      },
    );
  }
  // A digest reference (the release's, or one given with --image) is pulled when the engine lacks it.
  if (DIGEST_REFERENCE.test(image)) image = await options.pullImage(image);
  return { kind, image };
}
