// The CLI end to end on hostile or broken inputs (docs/security.md): each is bad input,
// exit 2, with a message naming the file, link or id — never a run, a cache
// entry or a file touched outside the folders given.
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashTree, type Scorecard, type VerificationReport } from '@junobench/core';
import { writeForgedRepair, writeForgeryFixture, type ForgeryFixture } from './forgery-fixture.js';
import { junobenchBin, repoRoot, runJunobench } from './run-cli.js';

let dir: string;
const instances = () => path.join(dir, 'instances');
const cache = () => path.join(dir, 'cache');

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-hardening-e2e-'));
  await cp(path.join(repoRoot, 'raw/instances/pandas_1'), path.join(instances(), 'pandas_1'), { recursive: true });
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function copyAs(id: string): Promise<string> {
  const to = path.join(instances(), id);
  await cp(path.join(instances(), 'pandas_1'), to, { recursive: true });
  const file = path.join(to, 'instance.json');
  await writeFile(file, (await readFile(file, 'utf8')).replace('"id": "pandas_1"', `"id": "${id}"`));
  return to;
}

describe('hostile instances and ids', () => {
  it('verify refuses an instance with a link leaving its folder: exit 2 naming the link, nothing run or cached', async () => {
    const inst = await copyAs('leaky_1');
    await writeFile(path.join(dir, 'secret.txt'), 'secret\n');
    await symlink(path.join(dir, 'secret.txt'), path.join(inst, 'data', 'secret.txt'));
    const r = await runJunobench(['verify', 'leaky_1', '--instances', instances(), '--cache-dir', cache()]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `${path.join(inst, 'data', 'secret.txt')}: data/secret.txt is a symbolic link to a path outside the instance folder`,
    );
    expect(await readdir(path.join(cache(), 'verify')).catch(() => [])).toEqual([]);
    await rm(inst, { recursive: true });
  }, 300_000);

  it('verify refuses a notebook that is not valid UTF-8: exit 2 naming the file and line, nothing cached', async () => {
    const inst = await copyAs('latin1_1');
    const nb = path.join(inst, 'reproduced.ipynb');
    const text = await readFile(nb, 'utf8');
    await writeFile(
      nb,
      Buffer.from(text.replace('"cells": [', '"metadata_note": "caf\u00e9",\n "cells": ['), 'latin1'),
    );
    const r = await runJunobench(['verify', 'latin1_1', '--instances', instances(), '--cache-dir', cache()]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `${nb.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, line \\d+: not valid UTF-8 \\(first invalid byte 0xe9`,
      ),
    );
    expect(await readdir(path.join(cache(), 'verify')).catch(() => [])).toEqual([]);
    await rm(inst, { recursive: true });
  }, 300_000);

  it('build refuses a --raw folder without its pool/: exit 2 naming the folder, no stage output written', async () => {
    const raw = path.join(dir, 'raw-without-pool');
    await mkdir(raw, { recursive: true });
    const out = path.join(dir, 'curated-without-pool');
    const r = await runJunobench(['build', '--raw', raw, '--out', out, '--cache-dir', cache()]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`the crash pool folder ${path.join(raw, 'pool')} is missing or not a folder`);
    expect(r.stderr).not.toMatch(/internal error|This is a bug/);
    expect((await readdir(out).catch(() => [])).filter((n) => !n.startsWith('.'))).toEqual([]);
  }, 120_000);

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'an import interrupted by %s exits %i and leaves neither its output nor a temporary file',
    async (signal, status) => {
      const out = path.join(dir, `interrupted-${signal}`);
      await mkdir(out, { recursive: true });
      const base = path.join(out, 'base.jsonl');
      expect((await runJunobench(['pool', 'import', 'raw/pool/empirical-study.csv', '-o', base])).code).toBe(0);
      const records = (await readFile(base, 'utf8')).split('\n').filter(Boolean);
      // Enough records (about 100 MB) that the import is still writing when the signal comes.
      const big = path.join(dir, `big-${signal}.jsonl`);
      const copies: string[] = [];
      for (let i = 0; i < 400; i++)
        for (const r of records) copies.push(r.replace(/^\{"id":"[^"]*"/, `{"id":"copy-${i}-${copies.length}"`));
      await writeFile(big, `${copies.join('\n')}\n`);
      const child = spawn(process.execPath, [junobenchBin, 'pool', 'import', big, '-o', path.join(out, 'pool.jsonl')], {
        cwd: repoRoot,
        env: { ...process.env, CI: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // Wait until the import has its temporary output open, then interrupt it.
      const deadline = Date.now() + 60_000;
      while (!(await readdir(out)).some((n) => n.endsWith('.tmp')) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(
        (await readdir(out)).some((n) => n.endsWith('.tmp')),
        'the import never opened its output',
      ).toBe(true);
      child.kill(signal);
      expect(await exited, stderr).toBe(status);
      expect(stderr).toContain(`junobench: interrupted (${signal}); outputs not complete were not written`);
      expect((await readdir(out)).sort()).toEqual(['base.jsonl', 'base.rejects.jsonl']);
    },
    180_000,
  );

  it.each([['../outside/pandas_1'], ['/tmp'], ['a/b']])(
    'subsample and verify refuse the id %s (exit 2), nothing outside --instances touched',
    async (id) => {
      await mkdir(path.join(dir, 'outside'), { recursive: true });
      await cp(path.join(instances(), 'pandas_1'), path.join(dir, 'outside', 'pandas_1'), { recursive: true });
      const before = await hashTree(path.join(dir, 'outside'));
      for (const args of [
        [
          'subsample',
          id,
          '--instances',
          instances(),
          '--method',
          'table',
          '--path',
          'x.csv',
          '--rows',
          '1',
          '--dry-run',
          '--cache-dir',
          cache(),
        ],
        ['verify', id, '--instances', instances(), '--cache-dir', cache()],
      ]) {
        const r = await runJunobench(args);
        expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`"${id}" is not a valid instance id`);
      }
      expect(await hashTree(path.join(dir, 'outside'))).toBe(before);
    },
    300_000,
  );
});

describe('outputs never go into the raw tree nor over a file the command reads', () => {
  // `tasks export -o raw/instances/pandas_1/instance.json` replaced the instance's record, exit 0.
  const I = () => instances();
  const inst = (...p: string[]) => path.join(instances(), 'pandas_1', ...p);
  it.each<[string, () => string[], string]>([
    ['tasks export -o', () => ['tasks', 'export', '--instances', I(), '-o', inst('instance.json')], '-o'],
    ['verify --json', () => ['verify', 'pandas_1', '--instances', I(), '--json', inst('verification.json')], '--json'],
    [
      'baseline -o',
      () => ['baseline', 'oracle', '--tasks', path.join(dir, 't.jsonl'), '--instances', I(), '-o', inst('p.jsonl')],
      '-o',
    ],
    [
      'subsample --json',
      () => [
        'subsample',
        'pandas_1',
        '--instances',
        I(),
        '--json',
        inst('r.json'),
        '--dry-run',
        '--cache-dir',
        cache(),
      ],
      '--json',
    ],
    ['build --out', () => ['build', '--raw', dir, '--out', path.join(dir, 'curated'), '--cache-dir', cache()], '--out'],
    ['report --out', () => ['report', '--from', path.join(dir, 'c'), '--raw', dir, '--out', inst('report')], '--out'],
    [
      'labels agreement --json',
      () => [
        'labels',
        'agreement',
        path.join(repoRoot, 'raw/annotations'),
        '--json',
        path.join(repoRoot, 'raw/annotations/x.json'),
      ],
      '--json',
    ],
    [
      'release prepare --out',
      () => ['release', 'prepare', '9.9.9', '--instances', I(), '--from', path.join(dir, 'c'), '--out', inst('rel')],
      '--out',
    ],
    ['add --report', () => ['add', inst('original.ipynb'), '--instances', I(), '--report', inst('t.json')], '--report'],
  ])(
    '%s into the instances or annotations read: exit 2 before any work, nothing written',
    async (_n, args, flag) => {
      const before = await hashTree(I());
      const r = await runJunobench(args());
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('error [E_USAGE]');
      expect(r.stderr).toMatch(new RegExp(`: ${flag} \\S+ is inside (--instances|--raw|the annotations) \\(`));
      expect(r.stderr).toContain('which this command reads: outputs never go there');
      expect(await hashTree(I())).toBe(before);
    },
    120_000,
  );

  it('stats --json over its own --input, and release verify --json into the release: exit 2', async () => {
    const input = path.join(dir, 'in.jsonl');
    await writeFile(input, '');
    const stats = await runJunobench(['stats', '--input', input, '--out', path.join(dir, 's'), '--json', input]);
    expect(stats.code, stats.stderr).toBe(2);
    expect(stats.stderr).toContain(`--json ${input} is also an input of this command`);
    const rel = path.join(dir, 'junobench-9.9.9');
    await mkdir(rel, { recursive: true });
    const verify = await runJunobench(['release', 'verify', rel, '--no-run', '--json', path.join(rel, 'v.json')]);
    expect(verify.code, verify.stderr).toBe(2);
    expect(verify.stderr).toContain('is inside the release');
    expect(await readdir(rel)).toEqual([]);
  }, 120_000);
});

describe('a notebook cannot write its own verdict (local runtime, at the CLI)', () => {
  let fx: ForgeryFixture;
  beforeAll(async () => {
    fx = await writeForgeryFixture(path.join(dir, 'forgery'));
  });

  it('verify: a reproduced notebook forging its crash and a fixed one forging "completed" are not verified', async () => {
    const json = path.join(dir, 'forgery', 'v.json');
    const r = await runJunobench(['verify', '--instances', fx.verifyInstances, '--no-cache', '--json', json]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('0/1 verified, 1 not verified');
    const v = (JSON.parse(await readFile(json, 'utf8')) as VerificationReport).instances[0]!;
    expect([v.status, v.reproduced.outcome, v.fixed.outcome]).toEqual(['not-verified', 'kernel-died', 'kernel-died']);
    // The killed runner is the notebook's doing, said as such; nothing of the forged KeyError was taken.
    expect(v.reproduced.reason).toMatch(/the runner process ended unexpectedly: .*\(while this notebook ran\)/);
    expect(v.reproduced.observed).toBeUndefined();
  }, 300_000);

  it('score: a repair that keeps the crashing cell and adds one forging "completed" is not resolved', async () => {
    const tasks = path.join(dir, 'forgery', 't.jsonl');
    const exported = await runJunobench([
      'tasks',
      'export',
      '--task',
      'repair',
      '--instances',
      fx.scoreInstances,
      '-o',
      tasks,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const predictions = path.join(dir, 'forgery', 'p.jsonl');
    await writeForgedRepair(tasks, predictions);
    const json = path.join(dir, 'forgery', 'card.json');
    const r = await runJunobench([
      'score',
      predictions,
      '--tasks',
      tasks,
      '--instances',
      fx.scoreInstances,
      '--runtime',
      'local',
      '--json',
      json,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^repair {4}1 scorable tasks: resolved 0\.0% \(0\/1\)/m);
    const card = JSON.parse(await readFile(json, 'utf8')) as Scorecard;
    expect(card.repair!.results).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        reason: expect.stringMatching(/the runner process ended unexpectedly/),
      }),
    ]);
  }, 300_000);
});

describe('time limits from the command line', () => {
  it.each([
    [['verify', 'pandas_1', '--timeout', '100000'], '--timeout'],
    [['verify', 'pandas_1', '--cell-timeout', '1e9'], '--cell-timeout'],
    [['score', 'p.jsonl', '--timeout', '86401'], '--timeout'],
    [['score', 'p.jsonl', '--cell-timeout', '1e9'], '--cell-timeout'],
  ])('%j: more than a day is refused (exit 2, naming the flag) before anything runs', async (args, flag) => {
    const r = await runJunobench([...args, '--instances', instances()]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`option '${flag} <s>' argument '[^']+' is invalid\\. expected at most 86400 seconds \\(a day\\)`),
    );
  });
});
