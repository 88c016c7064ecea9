import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatJson,
  type Benchmark,
  type Instance,
  type InstanceVerification,
  type Labels,
  type VerificationReport,
} from '@junobench/core';
import { createBenchmarkStage } from './stage-benchmark.js';

const labels: Labels = {
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
  diagnosis: 'column renamed, "price" gone',
};
const instance = (id: string): Instance => ({
  id,
  source: {
    platform: 'kaggle',
    notebookUrl: `https://www.kaggle.com/code/x/${id}`,
    datasets: [{ title: 'Houses', license: 'CC0: Public Domain', url: 'https://k/d' }],
  },
  crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 3 },
  execution: { order: 'file' },
  requires: ['pandas'],
  labels,
});
const verdict = (id: string, status: InstanceVerification['status']): InstanceVerification => {
  const runtime = { kind: 'local' as const, packages: {} };
  return {
    instance: id,
    status,
    verified: status === 'verified',
    flaky: false,
    reproduced: {
      version: 'reproduced',
      outcome: status === 'skipped' ? 'skipped-env' : status === 'verified' ? 'crash-reproduced' : 'no-crash',
      cells: [],
      durationMs: 1,
      runtime,
      ...(status === 'skipped' ? { reason: 'required module tensorflow not importable' } : {}),
    },
    fixed: {
      version: 'fixed',
      outcome: status === 'skipped' ? 'skipped-env' : 'fixed-ok',
      cells: [],
      durationMs: 1,
      runtime,
    },
    contentHash: 'h',
    cached: false,
  };
};
const report: VerificationReport = {
  runtime: 'local',
  summary: { total: 3, verified: 1, notVerified: 1, skipped: 1, flaky: 0 },
  instances: [verdict('a', 'verified'), verdict('b', 'not-verified'), verdict('c', 'skipped')],
};

describe('credentials in URLs are not published', () => {
  const secretUrl =
    'https://someone:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r/blob/main/nb.ipynb?access_token=s3cr3t&plain=1';
  const leaky: Instance = {
    ...instance('leaky'),
    source: {
      platform: 'github',
      notebookUrl: secretUrl,
      datasets: [{ title: 'D', license: 'CC0', url: 'https://data.example/d.zip?token=tok123' }],
    },
  };

  it('strips user-info and token parameters from benchmark.json/.csv and curated instance.json, warning with the instance', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'junobench-stage-benchmark-'));
    try {
      const dir = path.join(root, 'raw/instances/leaky');
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'instance.json'), formatJson(leaky));
      await writeFile(
        path.join(root, 'verification.json'),
        formatJson({
          ...report,
          summary: { total: 1, verified: 1, notVerified: 0, skipped: 0, flaky: 0 },
          instances: [verdict('leaky', 'verified')],
        }),
      );
      await writeFile(
        path.join(root, 'final-labels.jsonl'),
        `${JSON.stringify({ instance: 'leaky', labels, sources: { library: 'agreed', crashType: 'agreed', rootCause: 'agreed', pipelineStage: 'agreed' } })}\n`,
      );
      const stage = createBenchmarkStage({
        instancesDir: 'raw/instances',
        verification: 'verification.json',
        finalLabels: 'final-labels.jsonl',
        outDir: 'curated',
      });
      const result = await stage.run({ root, abs: (p) => path.resolve(root, p), onProgress: () => undefined });
      const published = ['curated/benchmark.json', 'curated/benchmark.csv', 'curated/instances/leaky/instance.json'];
      for (const f of published) {
        const text = await readFile(path.join(root, f), 'utf8');
        expect(text, f).not.toMatch(/ghp_|s3cr3t|tok123|someone/);
      }
      const json = JSON.parse(await readFile(path.join(root, 'curated/benchmark.json'), 'utf8')) as Benchmark;
      expect(json.instances[0]!.source).toMatchObject({
        notebookUrl: 'https://github.com/o/r/blob/main/nb.ipynb?plain=1',
        datasets: [{ url: 'https://data.example/d.zip' }],
      });
      expect(result.warnings).toEqual([
        'leaky: removed credentials from source.notebookUrl (user-info, access_token parameter) before publishing; fix raw/instances/leaky/instance.json',
        'leaky: removed credentials from source.datasets[0].url (token parameter) before publishing; fix raw/instances/leaky/instance.json',
      ]);
      // The raw instance itself is left as it is (the warning says to fix it).
      expect(await readFile(path.join(dir, 'instance.json'), 'utf8')).toContain('s3cr3t');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('curated/instances permissions', () => {
  // Published folders are for reading: they follow the umask (755/644 under
  // the usual 022), whatever the modes of the raw files or of temporary folders.
  it.each([
    ['022', 0o022, 0o755, 0o644],
    ['027', 0o027, 0o750, 0o640],
  ])("under umask %s: folders and files get the umask's modes", async (_name, umask, dirMode, fileMode) => {
    const root = await mkdtemp(path.join(tmpdir(), 'junobench-stage-benchmark-'));
    const old = process.umask(umask);
    try {
      const dir = path.join(root, 'raw/instances/a');
      await mkdir(path.join(dir, 'data/sub'), { recursive: true });
      await writeFile(path.join(dir, 'instance.json'), formatJson(instance('a')));
      await writeFile(path.join(dir, 'data/sub/t.csv'), 'a\n1\n');
      // A private raw file and folder must not make the published copy private.
      await chmod(path.join(dir, 'data/sub/t.csv'), 0o600);
      await chmod(path.join(dir, 'data/sub'), 0o700);
      await writeFile(
        path.join(root, 'verification.json'),
        formatJson({
          ...report,
          summary: { total: 1, verified: 1, notVerified: 0, skipped: 0, flaky: 0 },
          instances: [verdict('a', 'verified')],
        }),
      );
      await writeFile(
        path.join(root, 'final-labels.jsonl'),
        `${JSON.stringify({ instance: 'a', labels, sources: { library: 'agreed', crashType: 'agreed', rootCause: 'agreed', pipelineStage: 'agreed' } })}\n`,
      );
      const stage = createBenchmarkStage({
        instancesDir: 'raw/instances',
        verification: 'verification.json',
        finalLabels: 'final-labels.jsonl',
        outDir: 'curated',
      });
      await stage.run({ root, abs: (p) => path.resolve(root, p), onProgress: () => undefined });
      const mode = async (rel: string) => (await stat(path.join(root, rel))).mode & 0o777;
      for (const d of [
        'curated',
        'curated/instances',
        'curated/instances/a',
        'curated/instances/a/data',
        'curated/instances/a/data/sub',
      ])
        expect((await mode(d)).toString(8), d).toBe(dirMode.toString(8));
      for (const f of [
        'curated/benchmark.json',
        'curated/benchmark.csv',
        'curated/instances/a/instance.json',
        'curated/instances/a/data/sub/t.csv',
      ])
        expect((await mode(f)).toString(8), f).toBe(fileMode.toString(8));
    } finally {
      process.umask(old);
      await rm(root, { recursive: true, force: true });
    }
  });
});
