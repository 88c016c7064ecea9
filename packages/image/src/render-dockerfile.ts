import { sha256, stableStringify } from '@junobench/core';
import { CONTAINER_LAYOUT } from '@junobench/runtime';
import type { ImageRecipe } from './plan-image-recipe.js';

/**
 * Folder of the runner's files inside the build context (next to the Dockerfile): copied as is beside
 * CONTAINER_LAYOUT.runner.
 */
export const RUNNER_CONTEXT_NAME = 'runner';

/** Repository part of every benchmark image tag. */
export const IMAGE_REPOSITORY = 'junobench/benchmark';

/**
 * The Dockerfile for a recipe. Pure; the same recipe always gives the same
 * bytes (the image tag is a hash of them). The image: the profile's packages,
 * a build-time check that every mapped module imports (as the notebook user,
 * which also warms caches such as matplotlib's font list so no run pays for
 * it), the runner at CONTAINER_LAYOUT.runner, a non-root user, /work as
 * working directory. Nothing is fetched at run time.
 */
export function renderDockerfile(recipe: ImageRecipe): string {
  const py = recipe.python;
  const importCheck = ['ipykernel', 'jupyter_client', ...Object.keys(recipe.modules)];
  const lines: string[] = [
    `# JunoBench benchmark image, profile "${recipe.profile}" (docker/profiles/${recipe.profile}.json).`,
    "# Rendered by `junobench image build` from the instances' requirements; do not edit:",
    '# change the profile or the instances and build again.',
    `FROM ${recipe.base}`,
    '# Installs need root whatever user the base image ends with.',
    'USER root',
    '',
    'ENV LANG=C.UTF-8 \\',
    '    PYTHONDONTWRITEBYTECODE=1 \\',
    '    PYTHONUNBUFFERED=1 \\',
    '    DEBIAN_FRONTEND=noninteractive' + (recipe.installer === 'pip' ? ' \\' : ''),
    ...(recipe.installer === 'pip' ? ['    PIP_NO_CACHE_DIR=1 \\', '    PIP_DISABLE_PIP_VERSION_CHECK=1'] : []),
    '',
  ];
  const aptPackages =
    recipe.installer === 'apt' ? [...recipe.system, ...recipe.kernel, ...recipe.packages] : recipe.system;
  if (aptPackages.length > 0) {
    lines.push(
      "# Debian's Recommends are left out: they would add compilers and headers nobody runs.",
      "# dpkg's fsync after every file makes installs several times slower in an image layer,",
      '# which is thrown away on failure anyway.',
      'RUN echo force-unsafe-io > /etc/dpkg/dpkg.cfg.d/junobench-unsafe-io \\',
      ' && apt-get update \\',
      ' && apt-get install -y --no-install-recommends \\',
      ...aptPackages.map((p) => `      ${p} \\`),
      ' && apt-get clean \\',
      ' && rm -rf /var/lib/apt/lists/* /etc/dpkg/dpkg.cfg.d/junobench-unsafe-io',
      '',
    );
  }
  if (recipe.installer === 'pip') {
    lines.push(
      'RUN ' + py + ' -m pip install \\',
      ...[...recipe.kernel, ...recipe.packages].map((p, i, all) => `      '${p}'${i < all.length - 1 ? ' \\' : ''}`),
      '',
    );
  }
  lines.push(
    // A base that is itself a benchmark image already has the user.
    `RUN (id -u ${CONTAINER_LAYOUT.user} >/dev/null 2>&1 || useradd --create-home --uid ${CONTAINER_LAYOUT.uid} --user-group --shell /bin/sh ${CONTAINER_LAYOUT.user}) \\`,
    ` && mkdir -p ${CONTAINER_LAYOUT.workdir} ${dirname(CONTAINER_LAYOUT.runner)} \\`,
    ` && chown ${CONTAINER_LAYOUT.user}:${CONTAINER_LAYOUT.user} ${CONTAINER_LAYOUT.workdir}`,
    `COPY ${RUNNER_CONTEXT_NAME}/ ${dirname(CONTAINER_LAYOUT.runner)}/`,
    `RUN chmod -R a+rX ${dirname(CONTAINER_LAYOUT.runner)}`,
    '',
    `USER ${CONTAINER_LAYOUT.user}`,
    `WORKDIR ${CONTAINER_LAYOUT.workdir}`,
    '# Fails the build, not a verification later, when a mapped module does not import.',
    `RUN ${py} -c "import ${importCheck.join(', ')}" \\`,
    ` && ${py} ${CONTAINER_LAYOUT.runner} probe ipykernel jupyter_client > /dev/null`,
    '',
    `CMD ["${py}", "${CONTAINER_LAYOUT.runner}", "serve"]`,
    '',
  );
  return lines.join('\n');
}

function dirname(p: string): string {
  return p.slice(0, p.lastIndexOf('/')) || '/';
}

/**
 * sha256 of what the image is made of: the recipe's content (not the list of
 * instances behind it, so adding an instance with the same needs changes
 * nothing), the Dockerfile and the runner (every one of its files: give
 * `hashRunnerFiles()` from @junobench/runtime).
 */
export function hashImageContent(recipe: ImageRecipe, dockerfile: string, runner: string | Uint8Array): string {
  const content = {
    profile: recipe.profile,
    base: recipe.base,
    installer: recipe.installer,
    python: recipe.python,
    system: recipe.system,
    kernel: recipe.kernel,
    packages: recipe.packages,
    modules: recipe.modules,
  };
  const runnerHash = sha256(runner);
  return sha256(`${stableStringify(content)}\n${sha256(dockerfile)}\n${runnerHash}`);
}

/** `junobench/benchmark:<profile>-<first 12 hex of the content hash>`. */
export function imageTagFor(recipe: ImageRecipe, contentHash: string): string {
  return `${IMAGE_REPOSITORY}:${recipe.profile}-${contentHash.slice(0, 12)}`;
}
