// The dependency direction of docs/design.md, "Layers" (core ← shared ← domain ←
// pipeline ← shell) is enforced by @nx/enforce-module-boundaries with the tags in
// each package.json. This test runs that rule over every package so a
// violation fails the test run, and proves the rule really bites.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RULE = '@nx/enforce-module-boundaries';

async function lint(files: string[] | { text: string; filePath: string }) {
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: [
      { rules: { 'no-restricted-syntax': 'off', '@typescript-eslint/no-unused-vars': 'off' } },
      // This test is about the boundaries: the cycle rule (its own test below) would only make it slower.
      { files: ['packages/*/src/**/*.ts'], rules: { 'import-x/no-cycle': 'off', 'max-lines-per-function': 'off' } },
    ],
  });
  const results = Array.isArray(files)
    ? await eslint.lintFiles(files)
    : await eslint.lintText(files.text, { filePath: files.filePath });
  return results.flatMap((r) =>
    r.messages.filter((m) => m.ruleId === RULE).map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.message}`),
  );
}

// The rule reads Nx's cached project graph and silently skips itself when
// there is none, as in a fresh clone where no nx command has run yet: compute it.
beforeAll(async () => {
  await execa(path.join(root, 'node_modules/.bin/nx'), ['show', 'projects'], {
    cwd: root,
    env: { NX_DAEMON: 'false' },
  });
}, 120_000);

describe('module boundaries', () => {
  it('no package imports against the dependency direction', async () => {
    expect(await lint(['packages/*/src/**/*.ts', 'packages/*/test-helpers/**/*.ts'])).toEqual([]);
  }, 600_000);

  it.each([
    [
      'a stage importing another stage',
      'packages/pool/src/x.ts',
      "import { verifyInstances } from '@junobench/verify';\nexport const x = verifyInstances;",
    ],
    [
      'core importing a domain package',
      'packages/core/src/x.ts',
      "import { readNotebook } from '@junobench/notebook';\nexport const x = readNotebook;",
    ],
    [
      'a library importing the CLI',
      'packages/pipeline/src/x.ts',
      "import { main } from '@junobench/cli';\nexport const x = main;",
    ],
    [
      'the build importing the add flow (two pipeline-layer packages)',
      'packages/pipeline/src/x.ts',
      "import { addInstance } from '@junobench/add';\nexport const x = addInstance;",
    ],
    [
      'the release flows importing the build',
      'packages/publish/src/x.ts',
      "import { runBuild } from '@junobench/pipeline';\nexport const x = runBuild;",
    ],
    [
      'the add flow importing the release flows',
      'packages/add/src/x.ts',
      "import { prepareRelease } from '@junobench/publish';\nexport const x = prepareRelease;",
    ],
    [
      'the agent harness importing the evaluate flow (two pipeline-layer packages)',
      'packages/harness/src/x.ts',
      "import { openInstanceSet } from '@junobench/evaluate';\nexport const x = openInstanceSet;",
    ],
    [
      'benchmark assembly (domain) importing the build',
      'packages/benchmark/src/x.ts',
      "import { runStages } from '@junobench/pipeline';\nexport const x = runStages;",
    ],
    [
      'the build lock (domain) importing another domain package',
      'packages/build-lock/src/x.ts',
      "import { formatBenchmarkCsv } from '@junobench/benchmark';\nexport const x = formatBenchmarkCsv;",
    ],
    [
      'a relative import into a sibling package',
      'packages/labels/src/x.ts',
      "import { filterRecords } from '../../pool/src/filter-records.js';\nexport const x = filterRecords;",
    ],
  ])(
    'rejects %s',
    async (_name, filePath, text) => {
      const errors = await lint({ text, filePath: path.join(root, filePath) });
      expect(errors.length).toBeGreaterThan(0);
    },
    120_000,
  );

  it('allows the designed direction', async () => {
    // The pipeline loads stage packages lazily (a build with nothing to do loads none of them) and shared ones
    // statically.
    const text =
      "import { readNotebook } from '@junobench/notebook';\nexport async function x() {\n  const { verifyInstances } = await import('@junobench/verify');\n  return [verifyInstances, readNotebook];\n}";
    expect(await lint({ text, filePath: path.join(root, 'packages/pipeline/src/x.ts') })).toEqual([]);
  }, 120_000);

  it.each([
    ['the release flows', 'packages/publish/src/x.ts'],
    ['the add flow', 'packages/add/src/x.ts'],
  ])(
    'lets %s use the domain packages the build shares with them',
    async (_name, filePath) => {
      const text =
        "import { checkBuildSources } from '@junobench/build-lock';\nimport { formatBenchmarkCsv } from '@junobench/benchmark';\nexport const x = [checkBuildSources, formatBenchmarkCsv];";
      expect(await lint({ text, filePath: path.join(root, filePath) })).toEqual([]);
    },
    120_000,
  );

  it('tags every package with its layer, the new ones included', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const layers: Record<string, string> = {};
    for (const name of await readdir(path.join(root, 'packages'))) {
      const pkg = JSON.parse(await readFile(path.join(root, 'packages', name, 'package.json'), 'utf8')) as {
        nx?: { tags?: string[] };
      };
      layers[name] = (pkg.nx?.tags ?? []).find((t) => t.startsWith('layer:')) ?? 'none';
    }
    expect(layers).toMatchObject({
      add: 'layer:pipeline',
      benchmark: 'layer:domain',
      'build-lock': 'layer:domain',
      cli: 'layer:shell',
      core: 'layer:core',
      pipeline: 'layer:pipeline',
      publish: 'layer:pipeline',
    });
    expect(Object.entries(layers).filter(([, l]) => l === 'none')).toEqual([]);
  });
});

describe('import cycles', () => {
  it('the lint refuses a cycle between two modules of a package, naming both files', async () => {
    // The rule and its settings exactly as eslint.config.mjs gives them to a package's source, applied to a committed
    // pair of modules that import each other (test/fixtures/import-cycle: no package holds a cycle).
    const config = (await new ESLint({ cwd: root }).calculateConfigForFile(
      path.join(root, 'packages/benchmark/src/index.ts'),
    )) as { rules: Record<string, unknown>; settings: Record<string, unknown> };
    expect(config.rules['import-x/no-cycle']).toBeDefined();
    const { importX } = await import('eslint-plugin-import-x');
    const eslint = new ESLint({
      cwd: root,
      overrideConfig: [
        {
          files: ['test/fixtures/import-cycle/*.ts'],
          plugins: { 'import-x': importX as never },
          settings: config.settings,
          rules: { 'import-x/no-cycle': config.rules['import-x/no-cycle'] as never },
        },
      ],
    });
    const results = await eslint.lintFiles(['test/fixtures/import-cycle/*.ts']);
    const cycles = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId === 'import-x/no-cycle').map(() => path.basename(r.filePath)),
    );
    expect(cycles.sort()).toEqual(['a.ts', 'b.ts']);
  }, 120_000);
});
