// A researcher's run from a prepared release tarball, end to end through the CLI: `tasks export`, `baseline`,
// `verify` and `score` given --release use exactly the release's instances (a deprecated instance is absent) and say
// the same benchmark identity; the oracle and the heuristic compared with intervals and p-values; `baseline llm`
// against a stand-in endpoint over real HTTP writes 5 attempts per task, and `score` scores them.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, formatJson, hashFile, type Comparison, type Labels, type Scorecard } from '@junobench/core';
import { computeAgreement, readAnnotationFolder, writeAgreementReport } from '@junobench/labels';
import { prepareRelease } from '@junobench/publish';
import { generateReport } from '@junobench/report';
import { writeCuratedFixture, type Fixture } from '../packages/release/test-helpers/release.js';
import { answerLikeAModel, startModelStandIn, type ModelStandIn } from '../packages/llm/test-helpers/model-stand-in.js';
import { runJunobench } from './run-cli.js';

const LABELS: Record<string, Partial<Labels>> = {
  numpy_1: { library: 'numpy', crashType: 'value error', rootCause: 'data confusion', pipelineStage: 'training' },
  pandas_1: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'data preparation' },
  sklearn_1: { library: 'sklearn', crashType: 'type error', rootCause: 'API misuse', pipelineStage: 'training' },
  torch_1: {
    library: 'torch',
    crashType: 'index error',
    rootCause: 'implementation error',
    pipelineStage: 'evaluation/prediction',
  },
};
const DEPRECATED = 'torch_1';
const RELEASED = ['numpy_1', 'pandas_1', 'sklearn_1'];

let f: Fixture;
let archive: string;
let work: string;
let stand: ModelStandIn;
const w = (name: string) => path.join(work, name);
const benchmarkLine = () =>
  new RegExp(`^benchmark: release 0\\.2\\.0 \\(archive sha256 ${archiveSha}, 3 instances\\)$`, 'm');
let archiveSha = '';

beforeAll(async () => {
  f = await writeCuratedFixture(Object.entries(LABELS).map(([id, labels]) => ({ id, labels })));
  const raw = path.join(f.root, 'raw');
  await mkdir(path.join(raw, 'annotations'), { recursive: true });
  await mkdir(path.join(raw, 'instances'), { recursive: true });
  for (const annotator of ['annotator-a', 'annotator-b'])
    await writeFile(
      path.join(raw, 'annotations', `${annotator}.jsonl`),
      Object.keys(LABELS)
        .map((id) => `${JSON.stringify({ instance: id, annotator, ...LABELS[id] })}\n`)
        .join(''),
    );
  const built = computeAgreement((await readAnnotationFolder(path.join(raw, 'annotations'))).sets);
  await writeAgreementReport(path.join(f.curated, 'labels'), built, { minKappa: 0.5 });
  await generateReport({ from: f.curated, raw, out: path.join(f.curated, 'report') });
  await writeFile(
    path.join(f.root, 'deprecated.json'),
    formatJson({ instances: [{ id: DEPRECATED, deprecatedIn: '0.2.0', reason: 'the dataset was withdrawn' }] }),
  );
  const { written } = await prepareRelease({
    version: '0.2.0',
    curatedDir: f.curated,
    outDir: path.join(f.root, 'releases'),
    recipeDir: f.recipe,
    deprecatedFile: path.join(f.root, 'deprecated.json'),
    metadataFile: path.join(f.root, 'no-release.json'),
    rawInstancesDir: path.join(raw, 'instances'),
    annotationsDir: path.join(raw, 'annotations'),
    sourceDateEpoch: 1_767_225_600,
    toolchain: { version: '0.1.0', commit: 'c0ffee', dirty: false },
    minKappa: 0.5,
  });
  archive = written!.archive.path;
  archiveSha = await hashFile(archive);
  work = await mkdtemp(path.join(os.tmpdir(), 'jb-eval-release-'));
  stand = await startModelStandIn((r) => ({ content: answerLikeAModel(r.prompt), delayMs: r.n % 7 === 0 ? 300 : 0 }));
}, 300_000);
afterAll(async () => {
  await stand?.close();
  await rm(f.root, { recursive: true, force: true });
  if (work) await rm(work, { recursive: true, force: true });
});

describe('one benchmark identity from a release tarball', { timeout: 600_000 }, () => {
  it('tasks export --release has exactly the release instances: the deprecated one is absent', async () => {
    const r = await runJunobench(['tasks', 'export', '--release', archive, '-o', w('tasks.jsonl')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(benchmarkLine());
    expect(r.stdout).toContain('6 detect, 3 diagnose, 3 repair tasks from 3 instances');
    const tasks = await readFile(w('tasks.jsonl'), 'utf8');
    expect(tasks).not.toContain(DEPRECATED);
  });

  it('baseline and verify say the same benchmark and use the same instances', async () => {
    for (const which of ['oracle', 'heuristic']) {
      const r = await runJunobench([
        'baseline',
        which,
        '--release',
        archive,
        '--tasks',
        w('tasks.jsonl'),
        '-o',
        w(`${which}.jsonl`),
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(benchmarkLine());
      expect(r.stdout).toContain('for 12 tasks');
    }
    const v = await runJunobench(['verify', '--release', archive, '--runtime', 'local', '--cache-dir', w('cache')]);
    expect(v.code, `${v.stdout}\n${v.stderr}`).toBe(0);
    expect(v.stdout).toMatch(benchmarkLine());
    expect(v.stdout).toContain('3/3 verified');
    expect(v.stdout).not.toContain(DEPRECATED);
  });

  it('score compares the oracle and the heuristic: intervals, paired differences, p-values; byte-identical again', async () => {
    const args = [
      'score',
      w('oracle.jsonl'),
      w('heuristic.jsonl'),
      '--release',
      archive,
      '--tasks',
      w('tasks.jsonl'),
      '--runtime',
      'local',
      '--jobs',
      '2',
    ];
    const r = await runJunobench([...args, '--out', w('cmp')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(benchmarkLine());
    expect(r.stdout).toMatch(
      /^detect — crash +6 tasks: oracle 100\.0% \[100\.0, 100\.0\] · heuristic 50\.0% \[50\.0, 50\.0\] \| oracle − heuristic \+50\.0 \[50\.0, 50\.0\], p 0\.250$/m,
    );
    const c = JSON.parse(await readFile(w('cmp/comparison.json'), 'utf8')) as Comparison;
    expect(checkSchema('comparison', c)).toEqual([]);
    expect(c.benchmark).toMatchObject({
      source: 'release',
      version: '0.2.0',
      archiveSha256: archiveSha,
      ids: RELEASED,
    });
    const resolved = c.tables.find((t) => t.kind === 'repair' && t.library === null)!;
    expect(resolved.pairs[0]).toMatchObject({ difference: 1, onlyA: 3, onlyB: 0 });
    expect(resolved.pairs[0]!.pValue).toBeCloseTo(0.25, 12);
    const card = JSON.parse(await readFile(w('cmp/oracle/scorecard.json'), 'utf8')) as Scorecard;
    expect(checkSchema('scorecard', card)).toEqual([]);
    expect(card.provenance).toMatchObject({
      tool: 'oracle',
      junobench: '0.1.0',
      benchmark: c.benchmark,
      tasks: { seed: 'junobench-tasks-1', context: 'static', sha256: await hashFile(w('tasks.jsonl')) },
      predictions: { sha256: await hashFile(w('oracle.jsonl')) },
    });
    expect(card.runtime).toMatchObject({ kind: 'local', python: expect.any(String) });
    expect(await readFile(w('cmp/comparison.svg'), 'utf8')).toMatch(/^<svg/);
    const again = await runJunobench([...args, '--out', w('cmp2')]);
    expect(again.code, again.stderr).toBe(0);
    for (const file of [
      'comparison.json',
      'comparison.md',
      'comparison.svg',
      'oracle/scorecard.json',
      'heuristic/scorecard.md',
    ])
      expect(await readFile(w(`cmp2/${file}`), 'utf8'), file).toBe(await readFile(w(`cmp/${file}`), 'utf8'));
  });

  it('baseline llm writes 5 attempts per task from a stand-in endpoint, never the key; score scores them', async () => {
    const env = { OPENAI_API_KEY: 'sk-e2e-secret-123456' };
    const r = await runJunobench(
      [
        'baseline',
        'llm',
        '--release',
        archive,
        '--tasks',
        w('tasks.jsonl'),
        '-o',
        w('llm.jsonl'),
        '--base-url',
        stand.baseURL,
        '--model',
        'stand-in',
        '--concurrency',
        '3',
        '--temperature',
        '0.7',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(benchmarkLine());
    expect(r.stdout).toContain('60 predictions for 12 tasks × 5 attempts (60 answered now, 0 abstained)');
    for (const text of [
      r.stdout,
      r.stderr,
      await readFile(w('llm.jsonl'), 'utf8'),
      await readFile(w('llm.jsonl.log.jsonl'), 'utf8'),
    ])
      expect(text).not.toContain(env.OPENAI_API_KEY);
    expect(stand.requests.every((q) => q.authorization === `Bearer ${env.OPENAI_API_KEY}`)).toBe(true);
    // A rerun resumes: nothing left to ask.
    const asked = stand.requests.length;
    const again = await runJunobench(
      [
        'baseline',
        'llm',
        '--release',
        archive,
        '--tasks',
        w('tasks.jsonl'),
        '-o',
        w('llm.jsonl'),
        '--base-url',
        stand.baseURL,
        '--model',
        'stand-in',
      ],
      { env },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('60 from an earlier run');
    expect(stand.requests.length).toBe(asked);
    const s = await runJunobench([
      'score',
      w('llm.jsonl'),
      '--release',
      archive,
      '--tasks',
      w('tasks.jsonl'),
      '--runtime',
      'local',
      '--json',
      w('llm-card.json'),
    ]);
    expect(s.code, s.stderr).toBe(0);
    const card = JSON.parse(await readFile(w('llm-card.json'), 'utf8')) as Scorecard;
    expect(card.detect).toMatchObject({ tasks: 6, attempts: 5 });
    // The stand-in always says "crashes with KeyError": right on the 3 crashing tasks, wrong on the 3 fixed ones.
    expect(card.detect!.majority.crash).toMatchObject({ correct: 3, total: 6 });
    expect(card.diagnose!.attempts).toBe(5);
    expect(card.repair!.attempts).toBe(5);
  });
});
