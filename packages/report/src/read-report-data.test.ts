import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatJson, isJunoError } from '@junobench/core';
import { readReportData } from './read-report-data.js';
import { renderStatsPage } from './render-stats.js';
import { summariseInstance } from './report-data.js';
import { fixtureNotebook, writeReportFixture, type ReportFixture } from '../test-helpers/report-fixture.js';

// Fixture folders and whole reports on a shared, busy machine: generous limits, never timings.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let tmp: string;
let fx: ReportFixture;

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-report-read-'));
  fx = await writeReportFixture(tmp);
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const read = (o: { raw?: boolean } = { raw: true }) =>
  readReportData({ from: fx.curated, ...(o.raw ? { raw: fx.raw } : {}), out: path.join(fx.curated, 'report') });

describe('readReportData', () => {
  it('reads the benchmark, verification, labels, stats and every instance folder', async () => {
    const data = await read();
    expect(data.name).toBe('JunoBench');
    expect(data.version).toBe('0.0.0-test');
    expect(data.verification?.runtime).toBe('local');
    expect(data.instances.map((i) => i.id)).toEqual(['NBspecific_1', 'pandas_1', 'tensorflow_1', 'torch_1']);
    const pandas = data.instances.find((i) => i.id === 'pandas_1')!;
    expect(pandas.inBenchmark).toBe(true);
    expect(pandas.folderHref).toBe('../instances/pandas_1');
    expect(pandas.files.map((f) => f.rel)).toEqual([
      'data/sales.csv',
      'fixed.ipynb',
      'instance.json',
      'original.ipynb',
      'reproduced.ipynb',
    ]);
    expect(Object.keys(pandas.notebooks).sort()).toEqual(['fixed', 'original', 'reproduced']);
    expect(pandas.disagreements).toEqual([
      {
        dimension: 'crashType',
        labels: { 'annotator-a': 'value error', 'annotator-b': 'invalid argument' },
        final: 'value error',
        source: 'adjudicated',
        note: 'IntCastingNaNError is a ValueError: the crash type is the exception class.',
        adjudicator: 'adjudicated',
      },
    ]);
    expect(data.charts.map((c) => [c.name, c.title])).toEqual([['library', 'Instances by library cause']]);
    expect(data.statsHref).toBe('../stats');
    expect(data.instances.flatMap((i) => i.problems)).toEqual([]);
  });

  it('lists an instance verified but left out of the benchmark, with the reason, from raw/', async () => {
    const torch = (await read()).instances.find((i) => i.id === 'torch_1')!;
    expect(torch.inBenchmark).toBe(false);
    expect(torch.excludedReason).toMatch(/^flaky: reproduced crash-reproduced, fixed fixed-ok/);
    expect(torch.folderHref).toBe('../../raw/instances/torch_1');
    expect(summariseInstance(torch).flags).toEqual(['flaky', 'excluded']);
  });

  it('without raw/: the left-out instance is still listed, its page says where its folder is', async () => {
    const data = await read({ raw: false });
    const torch = data.instances.find((i) => i.id === 'torch_1')!;
    expect(torch.problems).toEqual([]);
    expect(torch.notes).toEqual([expect.stringMatching(/not in the curated benchmark: run `junobench report --raw/)]);
    expect(data.instances.find((i) => i.id === 'pandas_1')!.disagreements[0]!.note).toBeUndefined();
  });

  it('names a benchmark instance whose curated folder is missing as a problem', async () => {
    await rm(path.join(fx.curated, 'instances', 'pandas_1'), { recursive: true });
    const pandas = (await read()).instances.find((i) => i.id === 'pandas_1')!;
    expect(pandas.problems).toEqual([expect.stringMatching(/^no instance folder at .*curated\/instances\/pandas_1$/)]);
  });

  it('lists a draft from raw/ with its suggested labels', async () => {
    const dir = path.join(fx.raw, 'instances', 'sklearn_9');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'instance.json'),
      formatJson({
        id: 'sklearn_9',
        status: 'draft',
        source: { platform: 'kaggle', notebookUrl: 'https://www.kaggle.com/code/x/y', datasets: [] },
        crash: { ename: 'ValueError', evalue: 'bad', match: 'exact', cell: 0 },
        execution: { order: 'file' },
        requires: ['sklearn'],
        suggestedLabels: {
          library: { value: 'sklearn', confidence: 0.9, evidence: ['the traceback ends in sklearn'] },
        },
      }),
    );
    await writeFile(path.join(dir, 'reproduced.ipynb'), formatJson(fixtureNotebook([{ code: 'fit()' }])));
    const draft = (await read()).instances.find((i) => i.id === 'sklearn_9')!;
    expect(draft.excludedReason).toMatch(/^a draft/);
    const row = summariseInstance(draft);
    expect(row.flags).toEqual(['draft', 'excluded']);
    expect(row.status).toBe('not-run');
    expect(row.suggested).toBe(true);
    expect(row.labels?.library).toBe('sklearn');
  });

  it('says which notebook cannot be read instead of failing the whole report', async () => {
    await writeFile(path.join(fx.curated, 'instances', 'pandas_1', 'fixed.ipynb'), '{"nbformat": 3}');
    const pandas = (await read()).instances.find((i) => i.id === 'pandas_1')!;
    expect(pandas.notebooks.fixed).toEqual({
      error: expect.stringMatching(/unsupported notebook format \(nbformat 3\)/),
    });
    expect(pandas.notebooks.reproduced).toHaveProperty('notebook');
  });

  it('refuses a link leaving an instance folder (the one rule for untrusted folders), naming it', async () => {
    const secret = path.join(tmp, 'secret.txt');
    await writeFile(secret, 'not for the report');
    await symlink(secret, path.join(fx.curated, 'instances', 'pandas_1', 'data', 'leak.csv'));
    const pandas = (await read()).instances.find((i) => i.id === 'pandas_1')!;
    expect(pandas.problems).toEqual([expect.stringMatching(/data\/leak\.csv.*outside the instance folder/)]);
    expect(pandas.files).toEqual([]);
    expect(pandas.notebooks).toEqual({});
  });

  it('leaves withdrawn instances out everywhere, and says the carried agreement figures count them', async () => {
    const withdrawn = (agreementRecomputed: boolean) =>
      readReportData({
        from: fx.curated,
        raw: fx.raw,
        out: path.join(fx.curated, 'report'),
        withdrawn: { instances: ['pandas_1'], agreementRecomputed },
      });
    const carried = await withdrawn(false);
    expect(carried.instances.map((i) => i.id)).toEqual(['NBspecific_1', 'tensorflow_1', 'torch_1']);
    expect(carried.agreement!.disagreements).toEqual([]);
    expect(carried.agreement!.instances).toBe((await read()).agreement!.instances);
    expect(carried.agreementWithdrawn).toEqual({ instances: 1, disagreements: 1, singlyAnnotated: 0 });
    const page = renderStatsPage(carried);
    expect(page).not.toContain('pandas_1');
    expect(page).toContain('<b>Carried from the annotation study, not recomputed:</b>');
    expect(page).toContain('not again after 1 instance was withdrawn from the benchmark');
    expect(page).toContain('1 disagreement of the withdrawn instance is left out');
    // Recomputed without them: the figures are the report's own, nothing to say.
    const recomputed = await withdrawn(true);
    expect(recomputed.agreementWithdrawn).toBeUndefined();
    expect(renderStatsPage(recomputed)).not.toContain('not recomputed');
    // Nothing withdrawn: the page the build has always rendered.
    expect(renderStatsPage(await read())).toContain('pandas_1');
  });

  it('fails on a --raw folder that does not exist', async () => {
    await expect(
      readReportData({ from: fx.curated, raw: path.join(tmp, 'nope'), out: path.join(tmp, 'r') }),
    ).rejects.toThrow(/no such folder: .*nope/);
  });

  it('fails on a missing benchmark.json with the command that makes it', async () => {
    await rm(path.join(fx.curated, 'benchmark.json'));
    const err = await read().catch((e: unknown) => e);
    expect(isJunoError(err)).toBe(true);
    expect((err as Error).message).toMatch(/no benchmark\.json in/);
    expect((err as { hint?: string }).hint).toMatch(/npx junobench build/);
  });

  it('fails on a curated file that breaks its schema, naming the file', async () => {
    const file = path.join(fx.curated, 'verification.json');
    const v = JSON.parse(await readFile(file, 'utf8')) as { runtime: string };
    v.runtime = 'teleport';
    await writeFile(file, JSON.stringify(v));
    await expect(read()).rejects.toThrow(/verification\.json|runtime/);
  });
});
