import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JunoError, checkSchema, type Annotation } from '@junobench/core';
import { computeAgreement } from './compute-agreement.js';
import { resolveFinalLabels } from './resolve-final-labels.js';
import { writeAgreementJson, writeAgreementReport } from './write-agreement-report.js';
import type { AnnotationSet } from './read-annotations.js';

const rows = (annotator: string, crash: string): AnnotationSet => ({
  annotator,
  annotations: [
    {
      instance: 'p1',
      annotator,
      library: 'pandas',
      crashType: 'key error',
      rootCause: 'API misuse',
      pipelineStage: 'data preparation',
      diagnosis: 'typo',
    },
    {
      instance: 'p2',
      annotator,
      library: 'pandas',
      crashType: crash,
      rootCause: 'API misuse',
      pipelineStage: 'training',
    },
  ] as Annotation[],
});

describe('writeAgreementReport', () => {
  it('writes agreement.json, agreement.md and final-labels.jsonl together, reproducibly', async () => {
    const sets = [rows('a', 'value error'), rows('b', 'invalid argument')];
    const report = computeAgreement(sets, { bootstrap: 50 });
    const finalLabels = resolveFinalLabels(sets, [{ instance: 'p2', crashType: 'value error' }], ['p1', 'p2']);
    const dir = await mkdtemp(path.join(tmpdir(), 'labels-report-'));
    const out = path.join(dir, 'labels');
    expect(await writeAgreementReport(out, report, { finalLabels, minKappa: 0.9 })).toEqual([
      'agreement.json',
      'agreement.md',
      'final-labels.jsonl',
    ]);
    expect((await readdir(out)).sort()).toEqual(['agreement.json', 'agreement.md', 'final-labels.jsonl']);
    const json = JSON.parse(await readFile(path.join(out, 'agreement.json'), 'utf8'));
    expect(checkSchema('agreement-report', json)).toEqual([]);
    expect(await readFile(path.join(out, 'agreement.md'), 'utf8')).toContain('Below κ 0.9: crash type');
    const lines = (await readFile(path.join(out, 'final-labels.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.instance, l.labels.crashType, l.sources.crashType])).toEqual([
      ['p1', 'key error', 'agreed'],
      ['p2', 'value error', 'adjudicated'],
    ]);
    const first = await readFile(path.join(out, 'agreement.json'));
    await writeAgreementReport(out, report, { finalLabels });
    expect((await readFile(path.join(out, 'agreement.json'))).equals(first)).toBe(true);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('writeAgreementJson (labels agreement --json)', () => {
  const report = () =>
    computeAgreement([rows('a', 'value error'), rows('b', 'invalid argument'), rows('c', 'value error')], {
      bootstrap: 50,
    });

  it('writes the real report, valid against agreement-report, as the build writes agreement.json', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'labels-json-'));
    const file = path.join(dir, 'agreement.json');
    await writeAgreementJson(file, report());
    const json = JSON.parse(await readFile(file, 'utf8'));
    expect(checkSchema('agreement-report', json)).toEqual([]);
    expect(json).toEqual(JSON.parse(JSON.stringify(report())));
    await writeAgreementReport(path.join(dir, 'labels'), report());
    expect(await readFile(file, 'utf8')).toBe(await readFile(path.join(dir, 'labels', 'agreement.json'), 'utf8'));
    await rm(dir, { recursive: true, force: true });
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- reports are broken on purpose, field by field
  type Report = any;
  // Broken copies of the real report: each is an internal error naming the field, and no file is written.
  it.each([
    ['a negative instance count', (r: Report) => (r.instances = -1), 'instances must be >= 0'],
    ['an unknown dimension', (r: Report) => (r.dimensions[0].dimension = 'colour'), 'dimensions[0].dimension'],
    ['a kappa that is a string', (r: Report) => (r.dimensions[1].kappa = '0.5'), 'dimensions[1].kappa'],
    ['a missing alpha', (r: Report) => delete r.dimensions[2].alpha, 'is missing required property "alpha"'],
    [
      'an interval of three numbers',
      (r: Report) => (r.dimensions[1].pairs[0].ciAsymptotic = [0, 0.5, 1]),
      'dimensions[1].pairs[0]',
    ],
    ['a confidence of 1', (r: Report) => (r.settings.confidence = 1), 'settings.confidence'],
    ['an extra property', (r: Report) => (r.minKappa = 0.9), 'unknown property "minKappa"'],
  ])('%s fails (%s)', async (_what, breakIt, named) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'labels-json-'));
    const file = path.join(dir, 'agreement.json');
    const r = report();
    expect(checkSchema('agreement-report', r)).toEqual([]);
    breakIt(r);
    let error: unknown;
    try {
      await writeAgreementJson(file, r);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code: 'E_INTERNAL', exitCode: 70, location: { file } });
    expect((error as JunoError).message).toContain('not a valid agreement-report: ');
    expect((error as JunoError).message).toContain(named);
    expect(await readdir(dir)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});
