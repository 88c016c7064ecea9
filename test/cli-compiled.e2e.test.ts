// The compiled CLI (tools/build-cli.mjs → packages/cli/dist/, made by `npm ci`)
// is what `junobench` runs; the TypeScript sources through tsx are what runs
// after an edit, until the next build. Both must behave the same: the same help
// for every command, the same output, files and exit codes for real commands,
// builds that skip each other's up-to-date stages; and the bin must never run a
// compiled CLI older than the sources.
//
// Everything runs in a private copy of the toolchain (packages/, schemas/,
// tools/build-cli.mjs; node_modules linked to this checkout's), compiled there:
// the test edits its sources, and engineers editing this checkout's sources
// while the suite runs cannot make its compiled CLI stale halfway.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationReport } from '@junobench/core';
import { repoRoot } from './run-cli.js';

type Mode = 'compiled' | 'tsx';
const MODES: Mode[] = ['compiled', 'tsx'];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let tmp: string;
let toolchain: string;

/** `node <args>` (a script and its arguments, node's flags first). */
function run(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, CI: '1', JUNOBENCH_CLI: '', JUNOBENCH_DEBUG: '', ...options.env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The copy's `junobench`, as a user runs it (mode: which path to force; none = the bin's own choice). */
const junobench = (args: string[], options: { cwd: string; mode?: Mode; env?: NodeJS.ProcessEnv }) =>
  run([path.join(toolchain, 'packages/cli/bin/junobench.js'), ...args], {
    cwd: options.cwd,
    env: { ...(options.mode ? { JUNOBENCH_CLI: options.mode } : {}), ...options.env },
  });
const buildCli = (...flags: string[]) =>
  run([path.join(toolchain, 'tools/build-cli.mjs'), ...flags], { cwd: toolchain });

/** A copy of the toolchain's sources that resolves its dependencies from this checkout. */
async function copyToolchain(dest: string): Promise<void> {
  for (const f of ['package.json', 'tsconfig.base.json', 'tools/build-cli.mjs'])
    await cp(path.join(repoRoot, f), path.join(dest, f));
  await cp(path.join(repoRoot, 'schemas'), path.join(dest, 'schemas'), { recursive: true });
  for (const pkg of await readdir(path.join(repoRoot, 'packages'))) {
    const from = path.join(repoRoot, 'packages', pkg);
    await cp(from, path.join(dest, 'packages', pkg), {
      recursive: true,
      filter: (f) => !/[/\\](node_modules|dist|__pycache__)$/.test(f),
    });
    // A package's own node_modules (e.g. core's ajv, another version than the root's).
    if (await exists(path.join(from, 'node_modules')))
      await symlink(path.join(from, 'node_modules'), path.join(dest, 'packages', pkg, 'node_modules'));
  }
  await mkdir(path.join(dest, 'node_modules/@junobench'), { recursive: true });
  for (const name of await readdir(path.join(repoRoot, 'node_modules'))) {
    if (name === '@junobench' || name === '.bin') continue;
    await symlink(path.join(repoRoot, 'node_modules', name), path.join(dest, 'node_modules', name));
  }
  for (const pkg of await readdir(path.join(dest, 'packages')))
    await symlink(path.join('../../packages', pkg), path.join(dest, 'node_modules/@junobench', pkg));
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Output with the per-mode working folder and durations made comparable. */
function normalize(text: string, work: string): string {
  return text
    .replaceAll(work, '<work>')
    .replace(/\b\d+(\.\d+)?\s?(ms|s|min)\b/g, '<time>')
    .replace(/\b\d+ min \d+ s\b/g, '<time>');
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-cli-compiled-'));
  toolchain = path.join(tmp, 'toolchain');
  await copyToolchain(toolchain);
  const built = await buildCli();
  expect(built.code, built.stderr).toBe(0);
  expect(built.stdout).toMatch(/^build-cli: compiled \d+ source files into packages\/cli\/dist\/\w+\/main\.js/);
  for (const mode of MODES) {
    const work = path.join(tmp, mode);
    await cp(path.join(repoRoot, 'raw'), path.join(work, 'raw'), {
      recursive: true,
      filter: (f) => !f.endsWith('project.json'),
    });
  }
}, 600_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the compiled CLI and the sources agree', () => {
  it('on the help of every command', async () => {
    const helps = await Promise.all(
      MODES.map((mode) => run([path.join(repoRoot, 'test/cli-help-all.mjs'), toolchain, mode], { cwd: toolchain })),
    );
    for (const h of helps) expect(h.code, h.stderr).toBe(0);
    const [compiled, tsx] = helps.map(
      (h) => JSON.parse(h.stdout) as { command: string; code: number; stdout: string }[],
    );
    expect(compiled!.map((h) => h.command)).toEqual(tsx!.map((h) => h.command));
    expect(compiled!.length).toBeGreaterThan(30);
    expect(compiled).toEqual(tsx);
    for (const h of compiled!) {
      expect(h.code).toBe(0);
      expect(h.stdout).toMatch(/^Usage: junobench/);
    }
  }, 600_000);

  // Real commands on the embedded raw/ (one working copy per mode, same relative paths).
  // Between them they load every lazily imported package: pool (exceljs), labels (vega,
  // sharp), suggest, score, verify with the Python runner (runtime), pipeline (build).
  const COMMANDS: { name: string; args: string[]; files?: string[] }[] = [
    {
      name: 'pool import',
      args: ['pool', 'import', 'raw/pool/empirical-study.csv', '-o', 'out/pool.jsonl'],
      files: ['out/pool.jsonl', 'out/pool.rejects.jsonl'],
    },
    {
      name: 'pool libcause --eval',
      args: ['pool', 'libcause', '-i', 'out/pool.jsonl', '-o', 'out/libcause.jsonl', '--eval'],
      files: ['out/libcause.jsonl'],
    },
    {
      name: 'pool filter',
      args: [
        'pool',
        'filter',
        '-i',
        'out/pool.jsonl',
        '--criteria',
        'raw/criteria/junobench.json',
        '-o',
        'out/kept.jsonl',
        '--report',
        'out/funnel.json',
      ],
      files: ['out/kept.jsonl', 'out/funnel.json'],
    },
    {
      name: 'labels agreement',
      args: ['labels', 'agreement', 'raw/annotations', '--json', 'out/agreement.json', '--bootstrap', '200'],
      files: ['out/agreement.json'],
    },
    { name: 'labels suggest', args: ['labels', 'suggest', 'pandas_1', 'NBspecific_1'] },
    {
      name: 'stats with charts',
      args: ['stats', '--input', path.join(repoRoot, 'test/fixtures/labels/benchmark-desc.csv'), '--out', 'out/stats'],
      files: [
        'out/stats/stats.json',
        'out/stats/stats.md',
        'out/stats/charts/crash-type.svg',
        'out/stats/charts/crash-type.png',
      ],
    },
    { name: 'tasks export', args: ['tasks', 'export', '-o', 'out/tasks.jsonl'], files: ['out/tasks.jsonl'] },
    { name: 'an unknown instance (exit 2)', args: ['verify', 'no_such_instance'] },
    { name: 'an id leaving --instances (exit 2)', args: ['subsample', '../raw', '--check'] },
    { name: 'a missing input (exit 2)', args: ['pool', 'import', 'missing.csv', '-o', 'out/x.jsonl'] },
    { name: 'an unknown verb (exit 2)', args: ['frobnicate'] },
  ];

  it.each(COMMANDS)(
    'on $name',
    async ({ args, files }) => {
      const runs = [];
      for (const mode of MODES) {
        const work = path.join(tmp, mode);
        const r = await junobench(args, { cwd: work, mode });
        runs.push({ code: r.code, stdout: normalize(r.stdout, work), stderr: normalize(r.stderr, work) });
      }
      expect(runs[0]!.stderr).not.toMatch(/internal error/);
      expect(runs[0]).toEqual(runs[1]);
      if (files) expect(runs[0]!.code, runs[0]!.stderr).toBe(0);
      for (const f of files ?? []) {
        const [a, b] = await Promise.all(MODES.map((mode) => readFile(path.join(tmp, mode, f))));
        expect(a!.equals(b!), `${f} differs between the compiled CLI and the sources`).toBe(true);
      }
    },
    600_000,
  );

  it('on verify in real kernels (the Python runner found from the compiled code)', async () => {
    const reports: VerificationReport[] = [];
    for (const mode of MODES) {
      const work = path.join(tmp, mode);
      const r = await junobench(
        ['verify', 'NBspecific_1', 'pandas_1', '--no-cache', '--cache-dir', 'out/cache', '--json', 'out/verify.json'],
        { cwd: work, mode },
      );
      expect(r.code, r.stderr).toBe(0);
      reports.push(JSON.parse(await readFile(path.join(work, 'out/verify.json'), 'utf8')) as VerificationReport);
    }
    const outcomes = (v: VerificationReport) =>
      v.instances.map((i) => [
        i.instance,
        i.status,
        i.reproduced.outcome,
        i.reproduced.observed?.ename,
        i.fixed.outcome,
      ]);
    expect(outcomes(reports[0]!)).toEqual([
      ['NBspecific_1', 'verified', 'crash-reproduced', 'NameError', 'fixed-ok'],
      ['pandas_1', 'verified', 'crash-reproduced', 'KeyError', 'fixed-ok'],
    ]);
    expect(outcomes(reports[0]!)).toEqual(outcomes(reports[1]!));
  }, 600_000);

  it('on build: the same toolchain fingerprint, so each skips the stages the other built', async () => {
    const work = path.join(tmp, 'compiled');
    const build = (mode: Mode) =>
      junobench(['build', '--only', 'pool,labels', '--out', 'out/curated'], { cwd: work, mode });
    const first = await build('compiled');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/2 stage\(s\) ran, 0 up to date/);
    const second = await build('tsx');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/0 stage\(s\) ran, 2 up to date/);
  }, 600_000);
});

describe('what a start loads', () => {
  // What the issue named, and the other dependencies that take tens of milliseconds or more to load.
  const HEAVY = [
    'dockerode',
    'exceljs',
    'sharp',
    'vega',
    'vega-lite',
    '@octokit/rest',
    'simple-git',
    'bullmq',
    'ioredis',
    'playwright-core',
    'execa',
    'tar',
    'tar-fs',
    'yauzl',
    're2js',
    'semver',
    'csv-parse',
    'csv-stringify',
  ];

  it.each(MODES)(
    '--help (%s) loads no heavy dependency, and of ours only @junobench/core and the CLI',
    async (mode) => {
      const trace = path.join(tmp, `loads-${mode}.txt`);
      const r = await run(
        [
          '--import',
          path.join(repoRoot, 'tools/trace-module-loads.mjs'),
          path.join(toolchain, 'packages/cli/bin/junobench.js'),
          '--help',
        ],
        {
          cwd: toolchain,
          env: { JUNOBENCH_CLI: mode, JUNOBENCH_TRACE_LOADS: trace },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      const loaded = (await readFile(trace, 'utf8')).split('\n');
      expect(loaded.length).toBeGreaterThan(10);
      const dependencies = new Set(
        loaded.map((l) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(l)?.[1]).filter(Boolean),
      );
      expect(dependencies).toContain('commander');
      expect(HEAVY.filter((h) => dependencies.has(h))).toEqual([]);
      const ours = new Set(loaded.map((l) => /\/packages\/([a-z-]+)\/(src|dist)\//.exec(l)?.[1]).filter(Boolean));
      expect([...ours].sort()).toEqual(mode === 'tsx' ? ['cli', 'core'] : ['cli']);
    },
    300_000,
  );
});

describe('the bin never runs a stale compiled CLI', () => {
  const which = async () => {
    const r = await junobench(['--version'], { cwd: toolchain, env: { JUNOBENCH_DEBUG: '1' } });
    expect(r.code, r.stderr).toBe(0);
    return r.stderr;
  };
  const mainTs = () => path.join(toolchain, 'packages/cli/src/main.ts');

  it('runs the compiled CLI while it is up to date, also after a touch that changes no byte', async () => {
    expect(await which()).toMatch(/^junobench: running the compiled CLI \(.*packages\/cli\/dist\/\w+\/main\.js\)$/m);
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(toolchain, 'packages/core/src/errors.ts'), later, later);
    expect(await which()).toMatch(/running the compiled CLI/);
  });

  it('runs the sources after an edit, silently on a pipe, and compiles them again with build-cli', async () => {
    const text = await readFile(mainTs(), 'utf8');
    const edited = text.replace("'Build JunoBench: ", "'Build JunoBench (edited): ");
    expect(edited).not.toBe(text);
    await writeFile(mainTs(), edited);
    expect(await which()).toMatch(
      /^junobench: running the TypeScript sources through tsx \(packages\/cli\/src\/main\.ts changed since the CLI was compiled\)$/m,
    );
    const help = await junobench(['--help'], { cwd: toolchain });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Build JunoBench (edited): ');
    expect(help.stderr).toBe('');
    const forced = await junobench(['--help'], { cwd: toolchain, mode: 'compiled' });
    expect(forced.code).toBe(3);
    expect(forced.stderr).toMatch(
      /JUNOBENCH_CLI=compiled, but packages\/cli\/src\/main\.ts changed since the CLI was compiled[\s\S]*npm run build:cli/,
    );

    const rebuilt = await buildCli();
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(await which()).toMatch(/running the compiled CLI/);
    expect((await junobench(['--help'], { cwd: toolchain, mode: 'compiled' })).stdout).toContain(
      'Build JunoBench (edited): ',
    );
    expect((await buildCli()).stdout).toMatch(/^build-cli: up to date/);
  }, 300_000);

  it('runs the sources when a compiled input was removed, or nothing was compiled', async () => {
    const helper = path.join(toolchain, 'packages/cli/src/commands/format.ts');
    const saved = await readFile(helper);
    await rm(helper);
    expect(await junobench(['--version'], { cwd: toolchain, mode: 'compiled' })).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('packages/cli/src/commands/format.ts was removed'),
    });
    await writeFile(helper, saved);
    await rm(path.join(toolchain, 'packages/cli/dist'), { recursive: true });
    expect(await which()).toMatch(/running the TypeScript sources through tsx \(the CLI has not been compiled\)/);
  }, 300_000);

  it('fails the build (not the install) with the compiler error, naming the file', async () => {
    const broken = path.join(toolchain, 'packages/cli/src/commands/format.ts');
    const saved = await readFile(broken, 'utf8');
    await writeFile(broken, `${saved}\nexport const oops = ;\n`);
    const strict = await buildCli();
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/could not compile the junobench CLI[\s\S]*format\.ts/);
    const atInstall = await buildCli('--warn-only');
    expect(atInstall.code).toBe(0);
    expect(atInstall.stderr).toMatch(/format\.ts[\s\S]*the CLI will run from its TypeScript sources/);
    await writeFile(broken, saved);
  }, 300_000);
});
