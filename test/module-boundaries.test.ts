// The dependency direction of docs/design.md, "Layers" (core ← shared ← domain ←
// pipeline ← shell) is enforced by @nx/enforce-module-boundaries with the tags in
// each package.json. This test runs that rule over every package so a
// violation fails the test run, and proves the rule really bites.
import path from 'node:path';
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RULE = '@nx/enforce-module-boundaries';

async function lint(files: string[] | { text: string; filePath: string }) {
  // This test is about the boundaries: only their rule runs (the lint runs the rest). The whole lint of every package
  // took about 35 s of this file's time on a busy 2-core machine.
  const eslint = new ESLint({ cwd: root, ruleFilter: ({ ruleId }) => ruleId === RULE });
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
    [
      "a library module using another package's test helper",
      'packages/publish/src/x.ts',
      "import { writeCuratedFixture } from '../../release/test-helpers/release.js';\nexport const x = writeCuratedFixture;",
    ],
    [
      "a test reaching into another package's sources by path",
      'packages/publish/src/x.test.ts',
      "import { planRelease } from '../../release/src/plan-release.js';\nexport const x = planRelease;",
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

  it('lets a test use the helpers of a package it builds on, by their path', async () => {
    const text =
      "import { writeCuratedFixture } from '../../release/test-helpers/release.js';\nexport const x = writeCuratedFixture;";
    expect(await lint({ text, filePath: path.join(root, 'packages/publish/src/x.test.ts') })).toEqual([]);
  }, 120_000);

  it("holds tests and helpers to the dependency direction when they use another package's helpers", async () => {
    // The lint lets a test import another package's test-helpers/ by path (helpers are in no package's exports), so
    // the direction is checked here, with the lint's own constraints.
    const found = await crossPackageHelperImports();
    expect(found.wrong).toEqual([]);
    // The scan sees the real ones (the release flows' tests use the release package's fixture and stand-ins).
    expect(found.checked).toContain('publish → release');
    // And it would see one against the direction.
    expect(await mayDependOn('core', 'release')).toBe(false);
    expect(await mayDependOn('publish', 'release')).toBe(true);
  });

  it('tags every package with its layer, the new ones included', async () => {
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

async function tagsOf(pkg: string): Promise<string[]> {
  const json = JSON.parse(await readFile(path.join(root, 'packages', pkg, 'package.json'), 'utf8')) as {
    nx?: { tags?: string[] };
  };
  return json.nx?.tags ?? [];
}

/** Whether the lint's constraints let package `from` import package `to` (every constraint on a tag of `from`). */
async function mayDependOn(from: string, to: string): Promise<boolean> {
  const { depConstraints } = (await import(pathToFileURL(path.join(root, 'eslint.config.mjs')).href)) as {
    depConstraints: { sourceTag: string; onlyDependOnLibsWithTags: string[] }[];
  };
  const [source, target] = [await tagsOf(from), await tagsOf(to)];
  return depConstraints
    .filter((c) => source.includes(c.sourceTag))
    .every((c) => c.onlyDependOnLibsWithTags.some((t) => target.includes(t)));
}

/** Relative imports from a package's tests and helpers into another package: only its helpers, only downwards. */
async function crossPackageHelperImports(): Promise<{ checked: string[]; wrong: string[] }> {
  const checked = new Set<string>();
  const wrong: string[] = [];
  for (const pkg of await readdir(path.join(root, 'packages'))) {
    const dir = path.join(root, 'packages', pkg);
    const files = [
      ...(await listTs(path.join(dir, 'src'))).filter((f) => f.endsWith('.test.ts')),
      ...(await listTs(path.join(dir, 'test-helpers'))),
    ];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      for (const [, spec] of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)['"](\.[^'"]+)['"]/g)) {
        const target = path.relative(path.join(root, 'packages'), path.resolve(path.dirname(file), spec!));
        const [to, folder] = target.split(path.sep);
        if (to === pkg || to === '..') continue;
        const where = `${path.relative(root, file)} imports ${spec}`;
        if (folder !== 'test-helpers') wrong.push(`${where}: not a test helper`);
        else if (!(await mayDependOn(pkg, to!))) wrong.push(`${where}: ${pkg} may not depend on ${to}`);
        else checked.add(`${pkg} → ${to}`);
      }
    }
  }
  return { checked: [...checked].sort(), wrong };
}

async function listTs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.join(e.parentPath, e.name));
}

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
