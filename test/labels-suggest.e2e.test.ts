// `junobench labels suggest` end to end: the real binary on the embedded raw/ data
// (instances with notebooks and labels; the small empirical-format pool).
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, type LabelSuggestionReport } from '@junobench/core';
import { repoRoot, runJunobench } from './run-cli.js';

const junobench = (...args: string[]) => runJunobench(args);
const ACCURACY =
  /^accuracy: library (\d\.\d{3}), crashType (\d\.\d{3}), rootCause (\d\.\d{3}), pipelineStage (\d\.\d{3})$/;

function lastLineAccuracies(stdout: string) {
  const last = stdout.trimEnd().split('\n').pop()!;
  const m = ACCURACY.exec(last);
  expect(m, `last line: ${last}`).not.toBeNull();
  const [library, crashType, rootCause, pipelineStage] = m!.slice(1).map(Number);
  return { library: library!, crashType: crashType!, rootCause: rootCause!, pipelineStage: pipelineStage! };
}

let tmp: string;
let pool: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'labels-suggest-e2e-'));
  pool = path.join(tmp, 'pool.jsonl');
  const imp = await junobench('pool', 'import', path.join(repoRoot, 'raw/pool/empirical-study.csv'), '-o', pool);
  expect(imp.code, imp.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('junobench labels suggest', () => {
  it('--help lists the flags, with an example', async () => {
    const r = await junobench('labels', 'suggest', '--help');
    expect(r.code).toBe(0);
    for (const flag of ['--json', '--eval', '--split', '--instances']) expect(r.stdout).toContain(flag);
    expect(r.stdout).toContain('junobench labels suggest pandas_1');
  });

  it('suggests for instance ids from their notebooks, with evidence; --json is valid against the schema', async () => {
    const json = path.join(tmp, 'instances.json');
    const r = await junobench('labels', 'suggest', 'NBspecific_1', 'pandas_1', '--json', json);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('NBspecific_1 (raw/instances/NBspecific_1/original.ipynb, code cell 8): NameError');
    expect(r.stdout).toMatch(
      /rootCause\s+NB specific\s+\d\.\d\d\s+NB specific\s+X_train is defined in an earlier cell/,
    );
    const report = JSON.parse(await readFile(json, 'utf8')) as LabelSuggestionReport;
    expect(checkSchema('label-suggestion-report', report)).toEqual([]);
    expect(report.crashes.map((c) => c.id)).toEqual(['NBspecific_1', 'pandas_1']);
    expect(report.crashes[0]!.suggestions.library.value).toBe('None');
    expect(report.crashes[1]!.suggestions).toMatchObject({
      library: { value: 'pandas' },
      crashType: { value: 'key error' },
    });
    expect(report.evaluation).toBeUndefined();
  });

  it('suggests for a notebook file (each saved error output); --eval without labels compares nothing', async () => {
    const r = await junobench('labels', 'suggest', 'raw/instances/torch_1/original.ipynb', '--eval');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('original.ipynb#cell');
    expect(r.stdout).toContain('no labelled crash: nothing to compare with');
    expect(lastLineAccuracies(r.stdout)).toEqual({ library: 0, crashType: 0, rootCause: 0, pipelineStage: 0 });
  });

  it('--eval on every embedded instance: per-dimension accuracy, confusion tables, the split; the last line', async () => {
    const ids = (await readdir(path.join(repoRoot, 'raw/instances'))).sort();
    const r = await junobench('labels', 'suggest', ...ids, '--eval', '--show', '0');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`suggested labels for ${ids.length} crashes`);
    expect(r.stdout).toContain('labelled \\ suggested');
    expect(r.stdout).toMatch(/^dev\s+\d+\s+\d\.\d{3}/m);
    expect(r.stdout).toMatch(/^held-out\s+\d+\s+\d\.\d{3}/m);
    const acc = lastLineAccuracies(r.stdout);
    // Floors well under what the suggestions reach on these instances: a broken rule set falls through them.
    expect(acc.library).toBeGreaterThanOrEqual(0.75);
    expect(acc.crashType).toBeGreaterThanOrEqual(0.6);
    expect(acc.pipelineStage).toBeGreaterThanOrEqual(0.75);
  });

  it('--eval on a pool of records, whole and on one side of the seeded split', async () => {
    const all = await junobench('labels', 'suggest', pool, '--eval', '--show', '1');
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/… and \d+ more crashes/);
    const whole = lastLineAccuracies(all.stdout);
    expect(whole.library).toBeGreaterThanOrEqual(0.8);
    expect(whole.crashType).toBeGreaterThanOrEqual(0.6);
    expect(whole.rootCause).toBeGreaterThanOrEqual(0.4);
    expect(whole.pipelineStage).toBeGreaterThanOrEqual(0.7);

    const json = path.join(tmp, 'held-out.json');
    const held = await junobench(
      'labels',
      'suggest',
      pool,
      '--eval',
      '--split',
      'held-out',
      '--show',
      '0',
      '--json',
      json,
    );
    expect(held.code).toBe(0);
    const report = JSON.parse(await readFile(json, 'utf8')) as LabelSuggestionReport;
    expect(checkSchema('label-suggestion-report', report)).toEqual([]);
    expect(report.split).toEqual({ seed: 'junobench-suggest-1', heldOutFraction: 0.5, evaluated: 'held-out' });
    const heldOut = report.crashes.filter((c) => c.split === 'held-out' && c.labels).length;
    expect(report.evaluation!.crashes).toBe(heldOut);
    expect(report.evaluation!.bySplit['held-out']!.crashes).toBe(heldOut);
    expect(report.evaluation!.bySplit.dev!.crashes + heldOut).toBe(report.crashes.filter((c) => c.labels).length);
    expect(lastLineAccuracies(held.stdout).library).toBe(
      Number(report.evaluation!.dimensions.library.accuracy.toFixed(3)),
    );
  });

  it('the same library estimate as pool libcause', async () => {
    const out = path.join(tmp, 'libcause.jsonl');
    const lc = await junobench('pool', 'libcause', '-i', pool, '-o', out, '--eval');
    expect(lc.code).toBe(0);
    const sg = await junobench('labels', 'suggest', pool, '--eval', '--show', '0');
    const libcause = /^accuracy: (\d\.\d{3})/m.exec(lc.stdout.trimEnd().split('\n').pop()!)![1];
    expect(lastLineAccuracies(sg.stdout).library.toFixed(3)).toBe(libcause);
  });

  it.each([
    ['an unknown split side', ['--split', 'test', 'pandas_1'], /--split must be all, dev or held-out/],
    ['an unknown instance', ['no_such_1'], /no instance "no_such_1"/],
    [
      'a file of another kind',
      ['README.md'],
      /give a notebook \(\.ipynb\), a pool of crash records \(\.jsonl\) or an instance id/,
    ],
  ])('refuses %s with exit 2 and a hint', async (_name, args, message) => {
    const r = await junobench('labels', 'suggest', ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
