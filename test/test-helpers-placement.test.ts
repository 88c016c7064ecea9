// Test helpers live in test-only modules (`*.test-helpers.ts`, or under
// test/), never in library sources: a module of packages/<name>/src that only
// tests import, and that the package's index.ts does not reach, is a test
// helper in disguise — shipped with the library, typed as its API, free to
// drift from what the library does. Test-only modules must not be reachable
// from index.ts either.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const isTest = (f: string) => f.endsWith('.test.ts');
const isHelper = (f: string) => f.endsWith('.test-helpers.ts');

async function listTs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'generated') out.push(...(await listTs(p)));
    } else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Relative imports of a module, resolved to .ts files. */
async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
}

async function check(pkg: string): Promise<{ disguised: string[]; helpersReachable: string[] }> {
  const src = path.join(root, 'packages', pkg, 'src');
  const files = await listTs(src);
  const reachable = new Set<string>();
  const stack = [path.join(src, 'index.ts')];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (reachable.has(f) || !files.includes(f)) continue;
    reachable.add(f);
    stack.push(...(await importsOf(f)));
  }
  const importedByTests = new Set<string>();
  for (const f of files.filter((x) => isTest(x) || isHelper(x))) for (const i of await importsOf(f)) importedByTests.add(i);
  const rel = (f: string) => path.relative(root, f);
  return {
    disguised: files.filter((f) => !isTest(f) && !isHelper(f) && !reachable.has(f) && importedByTests.has(f)).map(rel),
    helpersReachable: [...reachable].filter(isHelper).map(rel),
  };
}

describe('test helpers are test-only modules', async () => {
  const packages = (await readdir(path.join(root, 'packages'), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);

  it.each(packages)('%s: no library module is only there for tests, and index.ts reaches no test helper', async (pkg) => {
    expect(await check(pkg)).toEqual({ disguised: [], helpersReachable: [] });
  });
});
