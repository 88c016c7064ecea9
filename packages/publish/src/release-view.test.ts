// What the release view decides: which of curated/'s files a release ships redone (without the deprecated
// instances, the agreement judged by the release's gate), and when the agreement is recomputed rather than carried.
// On the release package's small curated fixture; the report is left to release-prepare.test.ts.
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgreementReport, Benchmark, DeprecatedInstance, Labels, VerificationReport } from '@junobench/core';
import { writeCuratedFixture, type Fixture } from '../../release/test-helpers/release.js';
import { writeReleaseView, type ReleaseViewOptions } from './release-view.js';

const IDS = ['numpy_1', 'pandas_1', 'sklearn_1'];
const LABELS: Record<string, Partial<Labels>> = {
  numpy_1: { library: 'numpy', crashType: 'value error', rootCause: 'data confusion', pipelineStage: 'training' },
  pandas_1: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'data preparation' },
  sklearn_1: {
    library: 'sklearn',
    crashType: 'type error',
    rootCause: 'API misuse',
    pipelineStage: 'model construction',
  },
};
const deprecate = (id: string): DeprecatedInstance => ({ id, deprecatedIn: '0.2.0', reason: 'the data was withdrawn' });

let f: Fixture;
let annotations: string;

beforeAll(async () => {
  f = await writeCuratedFixture([...IDS.map((id) => ({ id, labels: LABELS[id] })), { id: 'torch_1', status: 'flaky' }]);
  await writeFile(
    path.join(f.curated, 'labels', 'final-labels.jsonl'),
    IDS.map((id) => `${JSON.stringify({ instance: id, ...LABELS[id] })}\n`).join(''),
  );
  // Two annotators who disagree only on pandas_1's crash type.
  annotations = path.join(f.root, 'raw', 'annotations');
  await mkdir(annotations, { recursive: true });
  for (const annotator of ['annotator-a', 'annotator-b']) {
    const line = (id: string) =>
      JSON.stringify({
        instance: id,
        annotator,
        ...LABELS[id],
        ...(annotator === 'annotator-b' && id === 'pandas_1' ? { crashType: 'value error' } : {}),
      });
    await writeFile(path.join(annotations, `${annotator}.jsonl`), IDS.map((id) => `${line(id)}\n`).join(''));
  }
});
afterAll(() => rm(f.root, { recursive: true, force: true }));

function options(over: Partial<ReleaseViewOptions> = {}): ReleaseViewOptions {
  return {
    curatedDir: f.curated,
    deprecated: [],
    gate: { minKappa: 0.5, source: 'flag', setting: 0.9 },
    provenance: { toolchain: { version: '0.1.0', commit: 'c0ffee', dirty: false }, datasetVersion: '0.2.0' },
    ...over,
  };
}

const json = async <T>(file: string) => JSON.parse(await readFile(file, 'utf8')) as T;
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('writeReleaseView', { timeout: 60_000 }, () => {
  it('without deprecations, only the agreement is redone, judged by the release gate; close removes the folder', async () => {
    const view = await writeReleaseView(options());
    try {
      expect(Object.keys(view.overlay).sort()).toEqual(['labels/agreement.json', 'labels/agreement.md']);
      expect(view.agreementRecomputed).toBe(false);
      const agreement = await json<AgreementReport>(view.overlay['labels/agreement.json']!);
      const curated = await json<AgreementReport>(path.join(f.curated, 'labels', 'agreement.json'));
      expect({ ...agreement, gate: undefined }).toEqual({ ...curated, gate: undefined });
      expect(agreement.gate).toMatchObject({ minKappa: 0.5, source: 'flag', passed: true });
    } finally {
      await view.close();
    }
    expect(await exists(view.overlay['labels/agreement.json']!)).toBe(false);
  });

  it('a deprecated instance in no curated file and in no annotation changes nothing else', async () => {
    const view = await writeReleaseView(options({ deprecated: [deprecate('keras_9')], annotationsDir: annotations }));
    try {
      expect(Object.keys(view.overlay).sort()).toEqual(['labels/agreement.json', 'labels/agreement.md']);
      expect(view.agreementRecomputed).toBe(false);
    } finally {
      await view.close();
    }
  });

  it('a deprecated instance of the benchmark leaves every curated list, and the summary is counted again', async () => {
    const view = await writeReleaseView(options({ deprecated: [deprecate('pandas_1')] }));
    try {
      expect(Object.keys(view.overlay).sort()).toEqual([
        'benchmark.csv',
        'benchmark.json',
        'labels/agreement.json',
        'labels/agreement.md',
        'labels/final-labels.jsonl',
        'stats',
        'verification.json',
      ]);
      const benchmark = await json<Benchmark>(view.overlay['benchmark.json']!);
      expect(benchmark.instances.map((e) => e.id)).toEqual(['numpy_1', 'sklearn_1']);
      const csv = await readFile(view.overlay['benchmark.csv']!, 'utf8');
      expect(
        csv
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(',')[0]),
      ).toEqual(['id', 'numpy_1', 'sklearn_1']);
      const verification = await json<VerificationReport>(view.overlay['verification.json']!);
      expect(verification.instances.map((v) => v.instance)).toEqual(['numpy_1', 'sklearn_1', 'torch_1']);
      expect(verification.summary).toEqual({ total: 3, verified: 2, notVerified: 0, skipped: 0, flaky: 1 });
      const finalLabels = await readFile(view.overlay['labels/final-labels.jsonl']!, 'utf8');
      expect(
        finalLabels
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { instance: string }).instance),
      ).toEqual(['numpy_1', 'sklearn_1']);
      // No annotations at hand: the build's figures are carried (and the card says so).
      expect(view.agreementRecomputed).toBe(false);
      expect((await json<AgreementReport>(view.overlay['labels/agreement.json']!)).instances).toBe(4);
    } finally {
      await view.close();
    }
  });

  it("with the annotations, the agreement is recomputed without the deprecated instance's", async () => {
    const view = await writeReleaseView(options({ deprecated: [deprecate('pandas_1')], annotationsDir: annotations }));
    try {
      expect(view.agreementRecomputed).toBe(true);
      const agreement = await json<AgreementReport>(view.overlay['labels/agreement.json']!);
      expect(agreement.instances).toBe(2);
      expect(agreement.disagreements).toEqual([]);
      expect(agreement.gate).toMatchObject({ minKappa: 0.5, passed: true, below: [] });
      expect(await readFile(view.overlay['labels/agreement.md']!, 'utf8')).not.toContain('pandas_1');
    } finally {
      await view.close();
    }
  });

  it('an annotated instance deprecated before it reached the benchmark still has its annotations left out', async () => {
    const extra = path.join(f.root, 'raw', 'annotations-with-draft');
    await mkdir(extra, { recursive: true });
    for (const annotator of ['annotator-a', 'annotator-b']) {
      const text = await readFile(path.join(annotations, `${annotator}.jsonl`), 'utf8');
      const draft = {
        instance: 'draft_1',
        annotator,
        ...LABELS.numpy_1,
        crashType: annotator === 'annotator-a' ? 'key error' : 'index error',
      };
      await writeFile(path.join(extra, `${annotator}.jsonl`), `${text}${JSON.stringify(draft)}\n`);
    }
    const view = await writeReleaseView(options({ deprecated: [deprecate('draft_1')], annotationsDir: extra }));
    try {
      expect(view.agreementRecomputed).toBe(true);
      expect((await json<AgreementReport>(view.overlay['labels/agreement.json']!)).instances).toBe(3);
      // The benchmark's lists did not hold it: rewritten, they are the curated ones.
      expect((await json<Benchmark>(view.overlay['benchmark.json']!)).instances.map((e) => e.id)).toEqual(IDS);
    } finally {
      await view.close();
    }
  });

  it('the same inputs give the same bytes, wherever the temporary folder is', async () => {
    const a = await writeReleaseView(options({ deprecated: [deprecate('pandas_1')], annotationsDir: annotations }));
    const b = await writeReleaseView(options({ deprecated: [deprecate('pandas_1')], annotationsDir: annotations }));
    try {
      expect(a.overlay['benchmark.json']).not.toBe(b.overlay['benchmark.json']);
      for (const name of ['benchmark.json', 'benchmark.csv', 'verification.json', 'labels/agreement.json'])
        expect(await readFile(a.overlay[name]!, 'utf8')).toBe(await readFile(b.overlay[name]!, 'utf8'));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
