// The whole workspace type-checks (strict) on its TypeScript sources, with no
// build step: part of the test run so a type error fails it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

it('tsc --noEmit passes over packages, tests, tools and bench', async () => {
  const r = await execa('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], { cwd: root, reject: false });
  expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
}, 300_000);
