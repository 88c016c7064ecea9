import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSchema, type Annotation } from '@junobench/core';
import { computeAgreement } from './compute-agreement.js';
import { resolveFinalLabels } from './resolve-final-labels.js';
import { writeAgreementReport } from './write-agreement-report.js';
import type { AnnotationSet } from './read-annotations.js';

const rows = (annotator: string, crash: string): AnnotationSet => ({
  annotator,
  annotations: [
    { instance: 'p1', annotator, library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'data preparation', diagnosis: 'typo' },
    { instance: 'p2', annotator, library: 'pandas', crashType: crash, rootCause: 'API misuse', pipelineStage: 'training' },
  ] as Annotation[],
});

describe('writeAgreementReport', () => {
  it('writes agreement.json, agreement.md and final-labels.jsonl together, reproducibly', async () => {
    const sets = [rows('a', 'value error'), rows('b', 'invalid argument')];
    const report = computeAgreement(sets, { bootstrap: 50 });
    const finalLabels = resolveFinalLabels(sets, [{ instance: 'p2', crashType: 'value error' }], ['p1', 'p2']);
    const dir = await mkdtemp(path.join(tmpdir(), 'labels-report-'));
    const out = path.join(dir, 'labels');
    expect(await writeAgreementReport(out, report, { finalLabels, minKappa: 0.9 })).toEqual(['agreement.json', 'agreement.md', 'final-labels.jsonl']);
    expect((await readdir(out)).sort()).toEqual(['agreement.json', 'agreement.md', 'final-labels.jsonl']);
    const json = JSON.parse(await readFile(path.join(out, 'agreement.json'), 'utf8'));
    expect(checkSchema('agreement-report', json)).toEqual([]);
    expect(await readFile(path.join(out, 'agreement.md'), 'utf8')).toContain('Below κ 0.9: crash type');
    const lines = (await readFile(path.join(out, 'final-labels.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
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
