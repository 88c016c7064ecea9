import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgreementReport, FinalLabels } from '@junobench/core';
import { createLabelsStage } from './stage-labels.js';

// Workbooks and temporary folders on a shared, busy machine: generous limits, never timings.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let root: string;
// Each dimension varies across the instances: kappa is undefined (and the gate fails) for a dimension with one value.
const LABELS: Record<string, { library: string; rootCause: string; pipelineStage: string }> = {
  a_1: { library: 'pandas', rootCause: 'API misuse', pipelineStage: 'data preparation' },
  b_1: { library: 'numpy', rootCause: 'data confusion', pipelineStage: 'training' },
  c_1: { library: 'pandas', rootCause: 'API misuse', pipelineStage: 'training' },
  e_1: { library: 'numpy', rootCause: 'data confusion', pipelineStage: 'data preparation' },
  d_1: { library: 'pandas', rootCause: 'API misuse', pipelineStage: 'training' },
};
const instance = (id: string, extra: object = {}) => ({
  id,
  source: { platform: 'local', datasets: [] },
  crash: { ename: 'KeyError', evalue: "'x'", match: 'exact', cell: 0 },
  execution: { order: 'file' },
  requires: [],
  ...extra,
});

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'jb-stage-labels-'));
  const inst = path.join(root, 'raw', 'instances');
  // d_1 is a draft: not labelled yet, whatever the annotators say of it.
  for (const [id, crashType] of [
    ['a_1', 'key error'],
    ['b_1', 'key error'],
    ['c_1', 'value error'],
    ['e_1', 'type error'],
    ['d_1', undefined],
  ] as const) {
    const extra = crashType ? { labels: { ...LABELS[id], crashType } } : { status: 'draft' };
    await mkdir(path.join(inst, id), { recursive: true });
    await writeFile(path.join(inst, id, 'instance.json'), JSON.stringify(instance(id, extra)));
  }
  const ann = path.join(root, 'raw', 'annotations');
  await mkdir(ann, { recursive: true });
  const line = (who: string, id: string, crashType: string) =>
    JSON.stringify({ instance: id, annotator: who, ...LABELS[id], crashType });
  await writeFile(
    path.join(ann, 'x.jsonl'),
    [
      line('x', 'a_1', 'key error'),
      line('x', 'b_1', 'key error'),
      line('x', 'c_1', 'value error'),
      line('x', 'e_1', 'type error'),
    ].join('\n'),
  );
  await writeFile(
    path.join(ann, 'y.jsonl'),
    [
      line('y', 'a_1', 'key error'),
      line('y', 'b_1', 'key error'),
      line('y', 'c_1', 'value error'),
      line('y', 'e_1', 'value error'),
    ].join('\n'),
  );
  await writeFile(path.join(ann, 'adjudicated.jsonl'), JSON.stringify({ instance: 'e_1', crashType: 'type error' }));
  await writeFile(path.join(root, 'raw', 'release.json'), JSON.stringify({ minKappa: 0.5 }));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (minKappa?: number) =>
  createLabelsStage({
    annotationsDir: 'raw/annotations',
    instancesDir: 'raw/instances',
    outDir: 'curated/labels',
    metadataFile: 'raw/release.json',
    ...(minKappa !== undefined ? { minKappa } : {}),
  }).run({ root, abs: (p) => path.join(root, p), onProgress: () => undefined });

const agreement = async () =>
  JSON.parse(await readFile(path.join(root, 'curated', 'labels', 'agreement.json'), 'utf8')) as AgreementReport;

describe('the labels stage', () => {
  it("judges agreement by raw/release.json's minKappa, labels ready instances from the annotations, and counts drafts apart", async () => {
    const r = await run();
    expect(r.failed).toBe(false);
    expect(r.summary).toMatch(/^4 instances labelled \(and 1 draft apart, not labelled until ready: d_1\)/);
    expect(r.summary).toContain('gate κ ≥ 0.5 (minKappa in raw/release.json): passed');
    expect((await agreement()).gate).toEqual({ minKappa: 0.5, source: 'setting', passed: true, below: [] });
    const final = (await readFile(path.join(root, 'curated', 'labels', 'final-labels.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as FinalLabels);
    expect(final.map((f) => f.instance)).toEqual(['a_1', 'b_1', 'c_1', 'e_1']);
    expect(final[0]!.labels.crashType).toBe('key error');
  });

  it('fails when a --min-kappa over the setting is not reached, and says the flag overrode it', async () => {
    const r = await run(0.99);
    expect(r.failed).toBe(true);
    expect(r.summary).toMatch(
      /gate κ ≥ 0\.99 \(--min-kappa, for this run only; the setting is 0\.5 in raw\/release\.json\): FAILED \(crashType\)/,
    );
    expect(r.warnings?.[0]).toMatch(
      /--min-kappa 0\.99 overrides the agreement gate for this build only \(the setting is 0\.5/,
    );
    expect((await agreement()).gate).toMatchObject({ minKappa: 0.99, source: 'flag', setting: 0.5, passed: false });
  });
});
