import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatJson, type Benchmark } from '@junobench/core';
import { findForeignEntries, generateReport } from './write-report.js';
import { writeReportFixture, type ReportFixture } from '../test-helpers/report-fixture.js';

// Fixture folders and whole reports on a shared, busy machine: generous limits, never timings.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let tmp: string;
let fx: ReportFixture;

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-report-write-'));
  fx = await writeReportFixture(tmp);
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('generateReport', () => {
  it('writes the pages and says what it wrote', async () => {
    const out = path.join(fx.curated, 'report');
    const events: string[] = [];
    const r = await generateReport({
      from: fx.curated,
      raw: fx.raw,
      out,
      onProgress: (e) => events.push(`${e.task} ${e.done}/${e.total}`),
    });
    expect(r).toMatchObject({ out, pages: 6, instances: 4, problems: [] });
    expect((await readdir(out)).sort()).toEqual(['.junobench-report.json', 'index.html', 'instances', 'stats.html']);
    expect(JSON.parse(await readFile(path.join(out, '.junobench-report.json'), 'utf8'))).toEqual({
      generator: 'junobench report',
      files: [
        'index.html',
        'instances/NBspecific_1.html',
        'instances/pandas_1.html',
        'instances/tensorflow_1.html',
        'instances/torch_1.html',
        'stats.html',
      ],
    });
    expect((await readdir(path.join(out, 'instances'))).sort()).toEqual([
      'NBspecific_1.html',
      'pandas_1.html',
      'tensorflow_1.html',
      'torch_1.html',
    ]);
    expect(r.bytes).toBe(
      (
        await Promise.all(
          [
            'index.html',
            'stats.html',
            'instances/NBspecific_1.html',
            'instances/pandas_1.html',
            'instances/tensorflow_1.html',
            'instances/torch_1.html',
          ].map(async (f) => (await stat(path.join(out, f))).size),
        )
      ).reduce((a, b) => a + b, 0),
    );
    expect((await stat(out)).mode & 0o777).toBe(0o755);
    expect(events).toEqual(['report 0/4', 'report 4/4']);
  });

  it('gives byte-identical pages from the same curated/ written elsewhere', async () => {
    const a = path.join(tmp, 'a');
    const b = path.join(tmp, 'b');
    await generateReport({ from: fx.curated, raw: fx.raw, out: a });
    await generateReport({ from: fx.curated, raw: fx.raw, out: b });
    for (const f of ['index.html', 'stats.html', 'instances/pandas_1.html']) {
      expect(await readFile(path.join(b, f), 'utf8'), f).toBe(await readFile(path.join(a, f), 'utf8'));
    }
  });

  it('reads the instance folders from where they are (instanceFolders) and gives the pages of the laid-out report, byte for byte', async () => {
    // A view of curated/ and raw/ without their instance folders (as a release renders its report): the same pages as
    // the report over the full layout, links included, and no instance folder made in the view.
    const view = path.join(tmp, 'view');
    for (const name of ['benchmark.json', 'verification.json', 'labels', 'stats'])
      await cp(path.join(fx.curated, name), path.join(view, 'curated', name), { recursive: true });
    await cp(path.join(fx.raw, 'annotations'), path.join(view, 'raw', 'annotations'), { recursive: true });
    const laidOut = await generateReport({ from: fx.curated, raw: fx.raw, out: path.join(fx.curated, 'report') });
    const inPlace = await generateReport({
      from: path.join(view, 'curated'),
      raw: path.join(view, 'raw'),
      out: path.join(view, 'curated', 'report'),
      instanceFolders: { curated: path.join(fx.curated, 'instances'), raw: path.join(fx.raw, 'instances') },
    });
    expect(inPlace).toMatchObject({
      pages: laidOut.pages,
      instances: laidOut.instances,
      bytes: laidOut.bytes,
      problems: [],
    });
    for (const f of [
      'index.html',
      'stats.html',
      ...(await readdir(path.join(fx.curated, 'report', 'instances'))).map((n) => `instances/${n}`),
    ]) {
      expect(await readFile(path.join(view, 'curated', 'report', f), 'utf8'), f).toBe(
        await readFile(path.join(fx.curated, 'report', f), 'utf8'),
      );
    }
    expect(await readFile(path.join(view, 'curated', 'report', 'instances', 'torch_1.html'), 'utf8')).toContain(
      '../../../raw/instances/torch_1/',
    );
    expect((await readdir(path.join(view, 'curated'))).sort()).toEqual([
      'benchmark.json',
      'labels',
      'report',
      'stats',
      'verification.json',
    ]);
    expect((await readdir(path.join(view, 'raw'))).sort()).toEqual(['annotations']);
  });

  it('replaces an earlier report whole: a page of a removed instance goes', async () => {
    const out = path.join(fx.curated, 'report');
    await generateReport({ from: fx.curated, out });
    const file = path.join(fx.curated, 'benchmark.json');
    const b = JSON.parse(await readFile(file, 'utf8')) as Benchmark;
    b.instances = b.instances.filter((e) => e.id !== 'tensorflow_1');
    await writeFile(file, formatJson(b));
    const v = JSON.parse(await readFile(path.join(fx.curated, 'verification.json'), 'utf8')) as {
      instances: { instance: string }[];
    };
    v.instances = v.instances.filter((e) => e.instance !== 'tensorflow_1');
    await writeFile(path.join(fx.curated, 'verification.json'), formatJson(v));
    await generateReport({ from: fx.curated, out });
    expect((await readdir(path.join(out, 'instances'))).sort()).toEqual([
      'NBspecific_1.html',
      'pandas_1.html',
      'torch_1.html',
    ]);
    expect((await readdir(fx.curated)).filter((n) => n.startsWith('.report') || n.includes('.old-'))).toEqual([]);
  });

  it('refuses to replace a folder that is not a report (a mistyped --out), and leaves it as it was', async () => {
    await expect(generateReport({ from: fx.curated, out: fx.curated })).rejects.toThrow(
      /refusing to replace .*not a report written by junobench report/,
    );
    expect(await stat(path.join(fx.curated, 'benchmark.json'))).toBeTruthy();
    const other = path.join(tmp, 'notes');
    await mkdir(other);
    await writeFile(path.join(other, 'index.html'), '<h1>my notes</h1>');
    await expect(generateReport({ from: fx.curated, out: other })).rejects.toThrow(/refusing to replace/);
    expect(await readFile(path.join(other, 'index.html'), 'utf8')).toBe('<h1>my notes</h1>');
  });

  it('keeps files it did not write: a folder holding them is refused, naming them, and left as it was', async () => {
    // The red-team's case: a copied index.html (ours) beside a thesis and a blog, and a file added to an earlier
    // report; both were deleted with the folder, exit 0.
    const out = path.join(tmp, 'site');
    await generateReport({ from: fx.curated, out });
    const index = await readFile(path.join(out, 'index.html'), 'utf8');
    await writeFile(path.join(out, 'notes.md'), 'mine');
    await expect(generateReport({ from: fx.curated, out })).rejects.toMatchObject({
      code: 'E_USAGE',
      exitCode: 2,
      message: `refusing to replace the report in ${out}: it also holds files junobench report did not write (notes.md)`,
    });
    expect(await readFile(path.join(out, 'notes.md'), 'utf8')).toBe('mine');

    const copied = path.join(tmp, 'thesis');
    await mkdir(path.join(copied, 'blog', 'posts'), { recursive: true });
    await writeFile(path.join(copied, 'index.html'), index);
    await writeFile(path.join(copied, 'thesis.tex'), '\\documentclass{article}');
    await writeFile(path.join(copied, 'blog', 'posts', 'a.md'), 'a');
    await mkdir(path.join(copied, 'instances'));
    await writeFile(path.join(copied, 'instances', 'figure.png'), 'png');
    await expect(generateReport({ from: fx.curated, out: copied })).rejects.toThrow(
      `refusing to replace the report in ${copied}: it also holds files junobench report did not write (blog/, instances/, thesis.tex)`,
    );
    expect((await readdir(copied)).sort()).toEqual(['blog', 'index.html', 'instances', 'thesis.tex']);
    expect(await readFile(path.join(copied, 'blog', 'posts', 'a.md'), 'utf8')).toBe('a');
  });

  it('replaces a report written before the manifest existed (its pages only), and one whose manifest lists its pages', async () => {
    const out = path.join(tmp, 'old-report');
    await generateReport({ from: fx.curated, out });
    await rm(path.join(out, '.junobench-report.json'));
    await writeFile(path.join(out, 'instances', 'gone_1.html'), '<p>an instance since removed</p>');
    await generateReport({ from: fx.curated, out });
    expect(await readdir(path.join(out, 'instances'))).not.toContain('gone_1.html');
    // A page the manifest lists, no longer planned, goes too.
    const manifest = JSON.parse(await readFile(path.join(out, '.junobench-report.json'), 'utf8')) as {
      files: string[];
    };
    manifest.files.push('instances/gone_2.html');
    await writeFile(path.join(out, '.junobench-report.json'), JSON.stringify(manifest));
    await writeFile(path.join(out, 'instances', 'gone_2.html'), 'x');
    await generateReport({ from: fx.curated, out });
    expect(await readdir(path.join(out, 'instances'))).not.toContain('gone_2.html');
  });

  it.each([
    [['index.html', 'stats.html', 'instances/a.html'], []],
    [
      ['index.html', 'thesis.tex', 'blog/a.md', 'blog/b/c.md'],
      ['blog/', 'thesis.tex'],
    ],
    [
      ['index.html', 'instances/a.html', 'instances/x.png', 'empty/'],
      ['empty/', 'instances/x.png'],
    ],
    [['instances/'], ['instances/']],
  ])('findForeignEntries(%j) names %j', (entries, foreign) => {
    const owned = (rel: string) => /^(index|stats)\.html$|^instances\/[^/]+\.html$/.test(rel);
    expect(findForeignEntries(entries, owned)).toEqual(foreign);
  });

  it('reports the instances whose pages show a problem', async () => {
    await writeFile(path.join(fx.curated, 'instances', 'pandas_1', 'reproduced.ipynb'), 'not json');
    const r = await generateReport({ from: fx.curated, raw: fx.raw, out: path.join(tmp, 'r') });
    expect(r.problems).toEqual([
      { instance: 'pandas_1', problem: expect.stringMatching(/^reproduced\.ipynb: not a notebook: invalid JSON/) },
    ]);
  });
});
