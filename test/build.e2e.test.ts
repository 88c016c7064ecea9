// `junobench build` end to end on a copy of the embedded raw/ (real kernels):
// every stage runs, the embedded instances verify (TensorFlow skipped with its
// reason), a second build skips everything, and a build elsewhere from the same
// raw/ gives byte-identical curated files. The first build is the suite's
// (test/suite-build.ts: cold, every stage), shared with the files that need a
// built benchmark; the builds here run on copies of it.
import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashTree, listTree, type Benchmark, type ChecksReport, type VerificationReport } from '@junobench/core';
import { junobenchBin, repoRoot, runJunobench, type CliRun } from './run-cli.js';
import { copyEmbeddedBuild, embeddedBuild } from './suite-build.js';

let a: string;
let b: string;
let cache: string;
let first: CliRun;

beforeAll(async () => {
  first = (await embeddedBuild()).run;
  ({ dir: a, cache } = await copyEmbeddedBuild(await mkdtemp(path.join(os.tmpdir(), 'jb-build-e2e-'))));
  b = await mkdtemp(path.join(os.tmpdir(), 'jb-build-e2e-'));
  await cp(path.join(repoRoot, 'raw'), path.join(b, 'raw'), { recursive: true });
}, 1_200_000);

describe('junobench build', () => {
  it('runs every stage and succeeds', () => {
    expect(first.code, first.stderr).toBe(0);
    for (const stage of ['pool', 'data', 'verify', 'checks', 'labels', 'benchmark', 'stats', 'report'])
      expect(first.stdout).toMatch(new RegExp(`^${stage}\\s+done in`, 'm'));
  });

  it('verifies every embedded instance except TensorFlow, skipped with its reason', async () => {
    const v = JSON.parse(await readFile(path.join(a, 'curated/verification.json'), 'utf8')) as VerificationReport;
    const notVerified = v.instances
      .filter((i) => i.status !== 'verified')
      .map((i) => `${i.instance}: ${i.status} ${i.reproduced.reason ?? ''}`);
    expect(notVerified).toEqual([
      expect.stringMatching(/^tensorflow_1: skipped required module.*tensorflow.*not importable/),
    ]);
    expect(v.summary.verified).toBeGreaterThanOrEqual(15);
  });

  it("records each instance's mutation-tested checks from raw/checks-report.json: every instance complete", async () => {
    const c = JSON.parse(await readFile(path.join(a, 'curated/checks.json'), 'utf8')) as ChecksReport;
    expect(c.instances.map((r) => `${r.instance} ${r.status}`)).toEqual(
      c.instances.map((r) => `${r.instance} ${r.instance === 'tensorflow_1' ? 'skipped-env' : 'complete'}`),
    );
    expect(c.instances.every((r) => r.checks.length > 0)).toBe(true);
  });

  it('writes the curated benchmark, labels, stats and pool outputs', async () => {
    const files = await listTree(path.join(a, 'curated'));
    for (const f of [
      'benchmark.json',
      'benchmark.csv',
      'verification.json',
      'subsample.json',
      'labels/agreement.json',
      'labels/final-labels.jsonl',
      'stats/stats.md',
      'stats/charts/library.svg',
      'stats/charts/library.png',
      'pool/funnel.json',
      'pool/sample.jsonl',
      'instances/pandas_1/instance.json',
      'report/index.html',
      'report/stats.html',
      'report/instances/pandas_1.html',
    ]) {
      expect(files).toContain(f);
    }
    const bench = JSON.parse(await readFile(path.join(a, 'curated/benchmark.json'), 'utf8')) as Benchmark;
    expect(bench.instances.map((e) => e.id)).toContain('NBspecific_1');
  });

  it('skips every stage on a second build with nothing changed', async () => {
    const again = await runJunobench(['build', '--cache-dir', cache], { cwd: a });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/0 stage\(s\) ran, 8 up to date/);
  }, 300_000);

  it("prints each stage's last progress line before the stage's summary, and the build's summary last", async () => {
    // One pipe for both streams, as a terminal or a CI log shows them.
    const r = spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${junobenchBin}" build --only report --force --cache-dir "${cache}" 2>&1`],
      { cwd: a, env: { ...process.env, CI: '1' }, encoding: 'utf8' },
    );
    expect(r.status, r.stdout).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^build complete: 1 stage\(s\) ran/);
    const summary = lines.findIndex((l) => /^report\s+done in/.test(l));
    expect(lines.findIndex((l) => /^report: \d+\/\d+/.test(l))).toBeLessThan(summary);
    expect(lines.slice(summary).filter((l) => /^report: \d+\/\d+/.test(l))).toEqual([]);
  }, 300_000);

  it('re-runs only what a change touches', async () => {
    const ann = path.join(a, 'raw/annotations/annotator-b.jsonl');
    await writeFile(ann, (await readFile(ann, 'utf8')) + '\n');
    const again = await runJunobench(['build', '--cache-dir', cache], { cwd: a });
    expect(again.stdout).toMatch(/^pool\s+up to date/m);
    expect(again.stdout).toMatch(/^verify\s+up to date/m);
    expect(again.stdout).toMatch(/^labels\s+done in/m);
  }, 300_000);

  it('gives byte-identical outputs from the same raw/ elsewhere (durations aside)', async () => {
    const second = await runJunobench(['build', '--cache-dir', cache], { cwd: b });
    expect(second.code, second.stderr).toBe(0);
    // The annotator file in `a` now has an extra blank line: compare what it cannot change.
    for (const rel of ['pool', 'stats', 'instances']) {
      expect(await hashTree(path.join(b, 'curated', rel)), rel).toBe(await hashTree(path.join(a, 'curated', rel)));
    }
    for (const rel of ['benchmark.json', 'benchmark.csv', 'labels/final-labels.jsonl']) {
      expect(await readFile(path.join(b, 'curated', rel), 'utf8'), rel).toBe(
        await readFile(path.join(a, 'curated', rel), 'utf8'),
      );
    }
    expect((await readdir(path.join(b, 'curated'))).sort()).toEqual((await readdir(path.join(a, 'curated'))).sort());
  }, 600_000);
});
