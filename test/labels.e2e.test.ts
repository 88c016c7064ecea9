// `junobench labels …` end to end: the real binary on fixture annotation files.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runJunobench } from './run-cli.js';
import { checkSchema } from '@junobench/core';

const root = repoRoot;
const fixtures = path.join(root, 'test/fixtures/labels');

function junobench(...args: string[]) {
  return runJunobench(args);
}

describe('junobench labels agreement', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'labels-e2e-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('prints the per-dimension table, weakest categories and disagreements; exit 0 above the gate', async () => {
    const r = await junobench(
      'labels',
      'agreement',
      `${fixtures}/agree/annotator-a.jsonl`,
      `${fixtures}/agree/annotator-b.jsonl`,
      '--json',
      `${tmp}/agreement.json`,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '| dimension | n | observed | chance | κ | CI (bootstrap) | SE | 95% CI (asymptotic) | α |',
    );
    expect(r.stdout).toMatch(/\| library cause \| 13 \| 1\.000 \|/);
    expect(r.stdout).toMatch(/\| crash type \| 13 \| 0\.923 \|/);
    expect(r.stdout).toMatch(
      /\| crash type \| 13 \| 0\.923 \| 0\.107 \| 0\.914 \| \[0\.\d{3}, 1\.000\] \| 0\.082 \| \[0\.753, 1\.000\] \| 0\.917 \|/,
    );
    expect(r.stdout).toContain('| crash type | invalid argument | 0.629 | 1 | 2 | 1 | 0.667 |');
    expect(r.stdout).toContain('| pandas_2 | crash type | value error | invalid argument |');
    expect(r.stdout).toContain('Every dimension reaches κ ≥ 0.9.');
    const json = JSON.parse(await readFile(`${tmp}/agreement.json`, 'utf8'));
    expect(checkSchema('agreement-report', json)).toEqual([]);
    expect(json.settings).toEqual({ seed: 'junobench', bootstrap: 2000, confidence: 0.95 });
  });

  it('reads a folder (skipping adjudicated.jsonl) with the same result, byte for byte', async () => {
    const r = await junobench('labels', 'agreement', `${fixtures}/agree`, '--json', `${tmp}/folder.json`);
    expect(r.code).toBe(0);
    expect(await readFile(`${tmp}/folder.json`, 'utf8')).toBe(await readFile(`${tmp}/agreement.json`, 'utf8'));
  });

  it('a glob that includes adjudicated.jsonl skips it with a note', async () => {
    const r = await junobench(
      'labels',
      'agreement',
      `${fixtures}/agree/adjudicated.jsonl`,
      `${fixtures}/agree/annotator-a.jsonl`,
      `${fixtures}/agree/annotator-b.jsonl`,
      '--bootstrap',
      '0',
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('note: skipping');
  });

  it('the seed decides the bootstrap interval', async () => {
    await junobench(
      'labels',
      'agreement',
      `${fixtures}/weak`,
      '--seed',
      '1',
      '--json',
      `${tmp}/s1.json`,
      '--min-kappa',
      '0',
    );
    await junobench(
      'labels',
      'agreement',
      `${fixtures}/weak`,
      '--seed',
      '1',
      '--json',
      `${tmp}/s1b.json`,
      '--min-kappa',
      '0',
    );
    await junobench(
      'labels',
      'agreement',
      `${fixtures}/weak`,
      '--seed',
      '2',
      '--json',
      `${tmp}/s2.json`,
      '--min-kappa',
      '0',
    );
    const [s1, s1b, s2] = await Promise.all(['s1', 's1b', 's2'].map((n) => readFile(`${tmp}/${n}.json`, 'utf8')));
    expect(s1b).toBe(s1);
    expect(s2).not.toBe(s1);
  });

  it('exit 1 when a dimension is below --min-kappa, naming it', async () => {
    const r = await junobench('labels', 'agreement', `${fixtures}/weak`, '--bootstrap', '200');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'agreement below the gate, κ ≥ 0.9 (the default; set minKappa in raw/release.json to change it): crash type (κ = 0.830), root cause (κ = 0.768)',
    );
    // What raises kappa, and that resolving does not.
    expect(r.stderr).toMatch(/hint: kappa compares the annotators' own labels .* Resolving does not raise it/);
    expect(r.stdout).toContain('## Disagreements (5)');
    const strict = await junobench(
      'labels',
      'agreement',
      `${fixtures}/agree`,
      '--min-kappa',
      '0.95',
      '--bootstrap',
      '0',
    );
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('crash type');
  });

  it.each([
    {
      args: [`${fixtures}/invalid/annotator-x.jsonl`, `${fixtures}/agree/annotator-a.jsonl`],
      text: [
        'annotator-x.jsonl, line 2, field "rootCause"',
        'did you mean "API misuse"?',
        'did you mean "tensorflow/keras"?',
        'did you mean "tensor shape mismatch"?',
      ],
    },
    { args: [`${fixtures}/agree/annotator-a.jsonl`], text: ["at least two annotators' files"] },
    { args: [`${fixtures}/agree`, '--min-kappa', 'high'], text: ['--min-kappa must be a number'] },
    { args: [`${fixtures}/agree`, '--bootstrap', '-5'], text: ['--bootstrap must be a whole number'] },
    { args: [`${fixtures}/nope.jsonl`, `${fixtures}/agree/annotator-a.jsonl`], text: ['no such file'] },
  ])('exit 2 on bad input: $text.0', async ({ args, text }) => {
    const r = await junobench('labels', 'agreement', ...args);
    expect(r.code).toBe(2);
    for (const t of text) expect(r.stderr).toContain(t);
    expect(r.stderr).not.toContain('internal error');
  });
});

describe('junobench labels check / resolve', () => {
  it('check validates a folder', async () => {
    const r = await junobench('labels', 'check', `${fixtures}/agree`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('13 annotations by annotator-a, all valid');
    expect(r.stdout).toContain('1 adjudications, all valid');
  });

  it('resolve prints final labels, the adjudicated one where annotators disagree', async () => {
    const r = await junobench('labels', 'resolve', `${fixtures}/agree`);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(13);
    const p2 = lines.find((l) => l.instance === 'pandas_2');
    expect(p2.labels.crashType).toBe('value error');
    expect(p2.sources.crashType).toBe('adjudicated');
  });

  it('resolve refuses unresolved disagreements, listing each', async () => {
    const r = await junobench('labels', 'resolve', `${fixtures}/weak`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('5 unresolved label disagreements');
    expect(r.stderr).toContain('sklearn_1, crash type: annotator-a "value error" vs annotator-c "type error"');
    expect(r.stderr).toContain('hint: add {"instance":');
  });
});

describe('the embedded annotations (raw/annotations)', () => {
  it("pass the default gate with a few real disagreements, and resolve to the instances' own labels", async () => {
    const agreement = await junobench('labels', 'agreement', 'raw/annotations', '--bootstrap', '0');
    expect(agreement.code).toBe(0);
    expect(agreement.stdout).toMatch(/## Disagreements \([1-9]\d*\)/);
    expect(agreement.stdout).toContain('Every dimension reaches κ ≥ 0.9.');

    const resolved = await junobench('labels', 'resolve', 'raw/annotations');
    expect(resolved.stderr).toBe('');
    expect(resolved.code).toBe(0);
    const final = new Map(
      resolved.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { instance: string; labels: unknown })
        .map((f) => [f.instance, f.labels]),
    );
    const instancesDir = path.join(root, 'raw/instances');
    const ids = (await readdir(instancesDir)).filter((d) => existsSync(path.join(instancesDir, d, 'instance.json')));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const instance = JSON.parse(await readFile(path.join(instancesDir, id, 'instance.json'), 'utf8')) as {
        labels: unknown;
      };
      expect(final.get(id), `final labels of ${id} (annotate it in raw/annotations/*.jsonl)`).toEqual(instance.labels);
    }
  });
});
