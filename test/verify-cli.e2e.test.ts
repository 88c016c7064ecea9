// `junobench verify` end to end: summary table, exit codes, --json, and
// `pool import --format notebooks` mining the embedded originals.
import { spawn } from 'node:child_process';
import { access, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, listInstanceIds, readInstance, type CrashRecord } from '@junobench/core';
import { descendantsOf, waitForKernel, stillAlive } from './process-tree.js';
import { junobenchBin, repoRoot, runJunobench } from './run-cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-verify-e2e-'));
  for (const id of ['pandas_1', 'NBspecific_2'])
    await cp(path.join(repoRoot, 'raw/instances', id), path.join(dir, 'instances', id), { recursive: true });
});

describe('junobench verify', () => {
  it('verifies instances, prints a summary table and writes --json', async () => {
    const json = path.join(dir, 'v.json');
    const r = await runJunobench([
      'verify',
      '--instances',
      path.join(dir, 'instances'),
      '--cache-dir',
      path.join(dir, 'cache'),
      '--json',
      json,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^instance\s+reproduced\s+fixed\s+time\s+status/m);
    expect(r.stdout).toMatch(/^NBspecific_2\s+crash-reproduced\s+fixed-ok/m);
    expect(r.stdout).toContain('2/2 verified');
    const report = JSON.parse(await readFile(json, 'utf8'));
    expect(checkSchema('verification', report)).toEqual([]);
  }, 300_000);

  it('a NUL byte in a code cell is bad input (exit 2) naming the notebook and the cell, before any kernel runs', async () => {
    const instances = path.join(dir, 'nul-instances');
    await cp(path.join(dir, 'instances', 'NBspecific_2'), path.join(instances, 'NBspecific_2'), { recursive: true });
    const file = path.join(instances, 'NBspecific_2', 'reproduced.ipynb');
    const nb = JSON.parse(await readFile(file, 'utf8')) as {
      cells: { cell_type: string; source: string | string[] }[];
    };
    const code = nb.cells.filter((c) => c.cell_type === 'code');
    code[0]!.source = `${[code[0]!.source].flat().join('')}\n# \u0000`;
    await writeFile(file, JSON.stringify(nb));
    const r = await runJunobench(['verify', '--instances', instances, '--no-cache']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/reproduced\.ipynb.*code cell 0 \(counting code cells from 0\) holds a NUL byte/);
  }, 300_000);

  it('refuses to run notebooks unsandboxed where bubblewrap cannot run (exit 3), unless --unsandboxed', async () => {
    const args = ['verify', 'NBspecific_2', '--instances', path.join(dir, 'instances'), '--no-cache'];
    const env = { JUNOBENCH_BWRAP: path.join(dir, 'no-bwrap-here') };
    const refused = await runJunobench(args, { env });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/E_ENV_SANDBOX.*cannot sandbox notebooks here: .*no-bwrap-here is not installed/);
    expect(refused.stderr).toMatch(/--unsandboxed/);
    const unsandboxed = await runJunobench([...args, '--unsandboxed'], { env });
    expect(unsandboxed.code, unsandboxed.stderr).toBe(0);
    expect(unsandboxed.stdout).toContain('1/1 verified');
  }, 300_000);

  it('exits 1 and says why when an instance is not verified', async () => {
    const inst = path.join(dir, 'instances', 'pandas_1', 'instance.json');
    const value = JSON.parse(await readFile(inst, 'utf8'));
    value.crash.evalue = "'something else'";
    await writeFile(inst, JSON.stringify(value, null, 2));
    const r = await runJunobench([
      'verify',
      'pandas_1',
      '--instances',
      path.join(dir, 'instances'),
      '--cache-dir',
      path.join(dir, 'cache'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /pandas_1: reproduced crash-mismatch \(message "'income'" does not match exact "'something else'"\)/,
    );
  }, 300_000);

  it('a draft (no fixed.ipynb) whose crash reproduces is DRAFT, exit 0; one whose crash no longer reproduces fails, exit 1', async () => {
    const drafts = path.join(dir, 'drafts');
    await cp(path.join(repoRoot, 'raw/instances', 'pandas_1'), path.join(drafts, 'pandas_1'), { recursive: true });
    await rm(path.join(drafts, 'pandas_1', 'fixed.ipynb'));
    const inst = path.join(drafts, 'pandas_1', 'instance.json');
    const value = JSON.parse(await readFile(inst, 'utf8'));
    value.status = 'draft';
    await writeFile(inst, JSON.stringify(value, null, 2));
    const args = ['verify', '--include-drafts', '--instances', drafts, '--cache-dir', path.join(dir, 'cache')];
    const ok = await runJunobench(args);
    expect(ok.code, `${ok.stdout}\n${ok.stderr}`).toBe(0);
    expect(ok.stdout).toMatch(/^pandas_1\s+crash-reproduced\s+absent\s+.*DRAFT$/m);
    value.crash.evalue = "'something else'";
    await writeFile(inst, JSON.stringify(value, null, 2));
    const bad = await runJunobench(args);
    expect(bad.code, `${bad.stdout}\n${bad.stderr}`).toBe(1);
    expect(bad.stdout).toMatch(/^pandas_1\s+crash-mismatch\s+absent\s+.*DRAFT: FAIL$/m);
    // A draft is counted apart from the benchmark, as failing to reproduce.
    expect(bad.stdout).toContain(
      'no instance of the benchmark (local runtime); apart from them, 1 draft (not in the benchmark): 1 not reproducing it',
    );
  }, 300_000);

  it('exits 2 with a clear message for an unknown instance or a broken instance.json', async () => {
    const unknown = await runJunobench(['verify', 'nope', '--instances', path.join(dir, 'instances')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no instance named "nope"[\s\S]*available: NBspecific_2, pandas_1/);
    const inst = path.join(dir, 'instances', 'NBspecific_2', 'instance.json');
    await writeFile(inst, (await readFile(inst, 'utf8')).replace('"execution-count"', '"random"'));
    const broken = await runJunobench(['verify', 'NBspecific_2', '--instances', path.join(dir, 'instances')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(
      /instance\.json[\s\S]*execution\.order[\s\S]*must be one of: "file", "execution-count"/,
    );
    expect(broken.stderr).not.toMatch(/at .*\.ts:\d+/);
  }, 120_000);
});

describe('junobench verify interrupted', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s while a notebook runs exits %i at once: no --json written, no runner, zygote or kernel left',
    async (signal, status) => {
      // Before, execa's signal-exit listener and the bin's handler each stepped aside for the other:
      // the signal was ignored and every notebook still ran.
      const instances = path.join(dir, `slow-${signal}`);
      await cp(path.join(repoRoot, 'raw/instances', 'pandas_1'), path.join(instances, 'pandas_1'), { recursive: true });
      const nbFile = path.join(instances, 'pandas_1', 'reproduced.ipynb');
      const nb = JSON.parse(await readFile(nbFile, 'utf8'));
      const first = nb.cells.find((c: { cell_type: string }) => c.cell_type === 'code');
      first.source = ['import time\n', 'time.sleep(100)\n', ...first.source];
      await writeFile(nbFile, JSON.stringify(nb));
      const json = path.join(dir, `interrupted-${signal}.json`);
      const child = spawn(
        process.execPath,
        [
          junobenchBin,
          'verify',
          '--instances',
          instances,
          '--no-cache',
          '--cache-dir',
          path.join(dir, 'cache'),
          '--json',
          json,
        ],
        {
          cwd: repoRoot,
          env: { ...process.env, CI: '1' },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // Wait until a kernel runs the notebook (in the sandbox: found by descent from the CLI's process).
      expect(await waitForKernel(child.pid!, 120_000), stderr).toBe(true);
      await new Promise((r) => setTimeout(r, 2000));
      const started = descendantsOf(child.pid!).map((p) => p.pid);
      child.kill(signal);
      const code = await Promise.race([
        exited,
        new Promise<string>((r) => setTimeout(() => r('still running 60 s after the signal'), 60_000)),
      ]);
      if (typeof code === 'string') child.kill('SIGKILL');
      expect(code, stderr).toBe(status);
      expect(stderr).toContain(`junobench: interrupted (${signal}); outputs not complete were not written`);
      await expect(access(json)).rejects.toThrow();
      const gone = Date.now() + 30_000;
      while (stillAlive(started).length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 200));
      expect(stillAlive(started)).toEqual([]);
    },
    300_000,
  );
});

describe('mining the embedded originals', () => {
  it('yields one crash record per instance, matching its instance.json crash', async () => {
    const out = path.join(dir, 'mined.jsonl');
    const instancesDir = path.join(repoRoot, 'raw/instances');
    const ids = await listInstanceIds(instancesDir);
    // Relative paths, as a user types them: each record's notebook names its instance.
    const rels = ids.map((id) => `raw/instances/${id}/original.ipynb`);
    const r = await runJunobench(['pool', 'import', ...rels, '--format', 'notebooks', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const records = (await readFile(out, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as CrashRecord);
    expect(records).toHaveLength(ids.length);
    for (const id of ids) {
      const inst = await readInstance(path.join(instancesDir, id));
      const rec = records.find((x) => x.notebook === `raw/instances/${id}/original.ipynb`);
      expect(rec, id).toBeDefined();
      expect(rec!.ename.split('.').pop(), id).toBe(inst.crash.ename);
      if (inst.crash.match === 'exact') expect(rec!.evalue.trim(), id).toBe(inst.crash.evalue.trim());
      else if (inst.crash.match === 'prefix') expect(rec!.evalue.startsWith(inst.crash.evalue), id).toBe(true);
      else expect(new RegExp(inst.crash.evalue, 's').test(rec!.evalue), id).toBe(true);
      expect(typeof rec!.columns.cell, id).toBe('number');
    }
  }, 120_000);
});
