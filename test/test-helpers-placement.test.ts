// Tests sit beside the code in packages/<name>/src; test helpers live OUTSIDE
// the library sources, in packages/<name>/test-helpers/. A helper inside src/
// is compiled into the library's build, linted and cached as production code,
// and one import away from being shipped as API. So:
//   1. no helper (by name, or a test-helpers folder) remains under any
//      packages/*/src, and no test hides in a test-helpers/ folder (vitest only
//      runs src/**/*.test.ts: it would never run);
//   2. no module of packages/<name>/src is there only for tests — imported by
//      tests or helpers while its index.ts does not reach it (a helper in
//      disguise, typed as the library's API, free to drift from it);
//   3. no library module imports from a test-helpers/ folder, and index.ts
//      reaches none;
//   4. a test-helpers module is imported only by tests, other helpers, bench/
//      or the root test/ folder;
//   5. the tools see the folder as test code: type-checked like the tests,
//      linted, left out of the library build and of Nx's production input.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rel = (f: string) => path.relative(root, f).split(path.sep).join('/');
const isTest = (f: string) => f.endsWith('.test.ts');
/** A helper by its name: `x.test-helpers.ts`, `x.test-utils.ts`, `test-helpers/x.ts`, `test-support/x.ts`… */
const HELPER_NAME = /(^|[/.-])test-(helpers?|utils?|support)([/.]|$)/;
/** A module of a packages/<name>/test-helpers/ folder. */
const inHelpersDir = (f: string) => /^packages\/[^/]+\/test-helpers\//.test(rel(f));
const SOURCE = /\.(ts|mts|mjs|js)$/;

async function listFiles(dir: string, keep: (f: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw e;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!['node_modules', 'dist', 'generated', '.nx', 'results'].includes(e.name))
        out.push(...(await listFiles(p, keep)));
    } else if (keep(p)) out.push(p);
  }
  return out;
}

/** Every module specifier of a file: static, re-export, side-effect and dynamic imports. */
async function specifiersOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\1/g)].map((m) => m[2]!);
}

/** Relative imports of a file, resolved to the .ts files they name. */
async function importsOf(file: string): Promise<string[]> {
  return (await specifiersOf(file))
    .filter((s) => s.startsWith('.'))
    .map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
}

const packages = (await readdir(path.join(root, 'packages'), { withFileTypes: true }))
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

async function checkPackage(pkg: string) {
  const src = path.join(root, 'packages', pkg, 'src');
  const helpersDir = path.join(root, 'packages', pkg, 'test-helpers');
  const files = await listFiles(src, (f) => f.endsWith('.ts'));
  const helpers = await listFiles(helpersDir, (f) => SOURCE.test(f));
  const library = files.filter((f) => !isTest(f));

  // index.ts and what it reaches; the walk goes on through a helper so that one
  // reached through another is reported too.
  const reachable = new Set<string>();
  const stack = [path.join(src, 'index.ts')];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (reachable.has(f) || !(files.includes(f) || inHelpersDir(f))) continue;
    reachable.add(f);
    stack.push(...(await importsOf(f)));
  }
  const importedByTests = new Set<string>();
  for (const f of [...files.filter(isTest), ...helpers]) for (const i of await importsOf(f)) importedByTests.add(i);

  const libraryImportsHelper: string[] = [];
  for (const f of library) {
    for (const s of await specifiersOf(f)) {
      const target = s.startsWith('.') ? rel(path.resolve(path.dirname(f), s)) : s;
      if (HELPER_NAME.test(target)) libraryImportsHelper.push(`${rel(f)} imports ${s}`);
    }
  }
  return {
    helpersInSrc: files.filter((f) => HELPER_NAME.test(path.relative(src, f).split(path.sep).join('/'))).map(rel),
    testsInHelpers: helpers.filter(isTest).map(rel),
    disguised: library.filter((f) => !HELPER_NAME.test(rel(f)) && !reachable.has(f) && importedByTests.has(f)).map(rel),
    libraryImportsHelper,
    helpersReachable: [...reachable].filter(inHelpersDir).map(rel),
  };
}

describe('test helpers live outside the library sources', () => {
  it.each(packages)(
    '%s: no helper in src/, no library module only there for tests, no library module reaching a helper',
    async (pkg) => {
      expect(await checkPackage(pkg)).toEqual({
        helpersInSrc: [],
        testsInHelpers: [],
        disguised: [],
        libraryImportsHelper: [],
        helpersReachable: [],
      });
    },
  );

  it('a test-helpers module is imported only by tests, other helpers, bench/ or test/', async () => {
    const scanned = [
      ...(await listFiles(path.join(root, 'packages'), (f) => SOURCE.test(f))),
      ...(await listFiles(path.join(root, 'tools'), (f) => SOURCE.test(f))),
      ...(await listFiles(path.join(root, 'bench'), (f) => SOURCE.test(f))),
      ...(await listFiles(path.join(root, 'test'), (f) => SOURCE.test(f))),
      ...(await readdir(root)).filter((f) => SOURCE.test(f)).map((f) => path.join(root, f)),
    ];
    const allowed = (f: string) => isTest(f) || inHelpersDir(f) || /^(bench|test)\//.test(rel(f));
    const wrong: string[] = [];
    let helperImports = 0;
    for (const f of scanned) {
      for (const i of await importsOf(f)) {
        if (!inHelpersDir(i)) continue;
        helperImports++;
        if (!allowed(f)) wrong.push(`${rel(f)} imports ${rel(i)}`);
      }
    }
    expect(wrong).toEqual([]);
    // The scan sees the helpers' real importers (a scan that finds none checks nothing).
    expect(helperImports).toBeGreaterThan(0);
  });

  it('the tools treat test-helpers/ as test code', async () => {
    const json = async (f: string) => JSON.parse(await readFile(path.join(root, f), 'utf8'));
    const withHelpers: string[] = [];
    for (const pkg of packages)
      if ((await listFiles(path.join(root, 'packages', pkg, 'test-helpers'), (f) => SOURCE.test(f))).length > 0)
        withHelpers.push(pkg);
    expect(withHelpers.length).toBeGreaterThan(0);

    const problems: string[] = [];
    if (!(await json('tsconfig.json')).include.includes('packages/*/test-helpers/**/*.ts'))
      problems.push('tsconfig.json does not type-check packages/*/test-helpers');
    const production: string[] = (await json('nx.json')).namedInputs.production;
    if (!production.includes('!{projectRoot}/test-helpers/**/*'))
      problems.push('nx.json: the production input does not leave out {projectRoot}/test-helpers');
    for (const pkg of withHelpers) {
      const dir = `packages/${pkg}`;
      if (!(await json(`${dir}/tsconfig.json`)).include.includes('test-helpers/**/*.ts'))
        problems.push(`${dir}/tsconfig.json does not type-check test-helpers/`);
      const lib = await json(`${dir}/tsconfig.lib.json`);
      if (lib.compilerOptions.rootDir !== 'src' || !lib.include.every((g: string) => g.startsWith('src/')))
        problems.push(`${dir}/tsconfig.lib.json compiles more than src/`);
      if (!/\btest-helpers\b/.test((await json(`${dir}/package.json`)).scripts.lint))
        problems.push(`${dir}/package.json: the lint script leaves out test-helpers/`);
    }
    expect(problems).toEqual([]);
  });
});
