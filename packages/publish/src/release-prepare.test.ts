// `release prepare` (prepareRelease, the flow): after `deprecate`, the release's
// report/ is rendered again over exactly the instances it ships, and its
// agreement figures are recomputed from the remaining instances' annotations;
// the archive stays byte-for-byte reproducible. Then what the flow itself
// decides: a dry run, the archive's date, a curated/ that may be stale.
import { mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJson, type AgreementReport, type Labels, type ReleaseManifest } from '@junobench/core';
import { writeCuratedFixture, type Fixture } from '../../release/test-helpers/release.js';
import { prepareRelease, type PrepareReleaseOptions } from './release-prepare.js';

// Loaded as the flows load them: the lint holds a package to one way of loading a library.
const { computeAgreement, readAnnotationFolder, writeAgreementReport } = await import('@junobench/labels');
const { openRelease } = await import('@junobench/release');
const { generateReport } = await import('@junobench/report');

// Labels that differ per instance in every dimension (a dimension with one category has no kappa).
const LABELS: Record<string, Partial<Labels>> = {
  numpy_1: {
    library: 'numpy',
    crashType: 'value error',
    rootCause: 'data confusion',
    pipelineStage: 'data preparation',
  },
  pandas_1: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'training' },
  sklearn_1: { library: 'sklearn', crashType: 'type error', rootCause: 'API misuse', pipelineStage: 'training' },
  torch_1: {
    library: 'torch',
    crashType: 'index error',
    rootCause: 'implementation error',
    pipelineStage: 'model construction',
  },
};
const DEPRECATED = 'pandas_1';

let f: Fixture;
let raw: string;
let built: AgreementReport;

beforeAll(async () => {
  f = await writeCuratedFixture(Object.entries(LABELS).map(([id, labels]) => ({ id, labels })));
  raw = path.join(f.root, 'raw');
  await mkdir(path.join(raw, 'annotations'), { recursive: true });
  await mkdir(path.join(raw, 'instances'), { recursive: true });
  // Two annotators agree everywhere but on pandas_1's crash type, which was adjudicated.
  const line = (annotator: string, id: string, over: Partial<Labels> = {}) =>
    JSON.stringify({ instance: id, annotator, ...LABELS[id], ...over });
  await writeFile(
    path.join(raw, 'annotations', 'annotator-a.jsonl'),
    Object.keys(LABELS)
      .map((id) => `${line('annotator-a', id)}\n`)
      .join(''),
  );
  await writeFile(
    path.join(raw, 'annotations', 'annotator-b.jsonl'),
    Object.keys(LABELS)
      .map((id) => `${line('annotator-b', id, id === DEPRECATED ? { crashType: 'value error' } : {})}\n`)
      .join(''),
  );
  await writeFile(
    path.join(raw, 'annotations', 'adjudicated.jsonl'),
    `${JSON.stringify({ instance: DEPRECATED, annotator: 'adjudicated', crashType: 'key error', note: 'KeyError raised by the lookup of a missing column.' })}\n`,
  );
  // curated/labels and curated/report as the build writes them: over every annotated instance, the deprecated one
  // included.
  built = computeAgreement((await readAnnotationFolder(path.join(raw, 'annotations'))).sets);
  await writeAgreementReport(path.join(f.curated, 'labels'), built, { minKappa: 0.5 });
  await generateReport({ from: f.curated, raw, out: path.join(f.curated, 'report') });
  await writeFile(
    path.join(f.root, 'deprecated.json'),
    formatJson({
      instances: [{ id: DEPRECATED, deprecatedIn: '0.2.0', reason: 'the dataset was withdrawn by its author' }],
    }),
  );
}, 120_000);
afterAll(() => rm(f.root, { recursive: true, force: true }));

function options(over: Partial<PrepareReleaseOptions> = {}): PrepareReleaseOptions {
  return {
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
    ...over,
  };
}

/** The archive extracted (safely, as `release verify` opens it) into a folder under the fixture's, removed with it. */
async function extracted(archive: string): Promise<string> {
  const opened = await openRelease(archive, { tmpDir: f.root });
  expect(opened.problems).toEqual([]);
  return opened.top;
}

describe('release prepare after a deprecation', { timeout: 120_000 }, () => {
  it('the fixture: the build shows the deprecated instance in its report and agreement', async () => {
    expect(built.instances).toBe(4);
    expect(built.disagreements.map((d) => d.instance)).toEqual([DEPRECATED]);
    expect(built.dimensions.find((d) => d.dimension === 'crashType')!.kappa).toBeLessThan(1);
    expect(await readFile(path.join(f.curated, 'report', 'index.html'), 'utf8')).toContain(
      `instances/${DEPRECATED}.html`,
    );
  });

  it('ships report/ rendered again without the deprecated instance, and agreement recomputed over the others; the same inputs give the same archive', async () => {
    const first = await prepareRelease(options({ writeDir: path.join(f.root, 'a') }));
    const { plan, written } = first;
    expect(plan.refusals).toEqual([]);
    expect(plan.warnings.join('\n')).not.toMatch(/report/);
    const paths = plan.manifest.files.map((x) => x.path);
    expect(paths.filter((p) => p.startsWith('report/'))).toEqual([
      'report/index.html',
      'report/instances/numpy_1.html',
      'report/instances/sklearn_1.html',
      'report/instances/torch_1.html',
      'report/stats.html',
    ]);

    const dir = await extracted(written!.archive.path);
    const index = await readFile(path.join(dir, 'report', 'index.html'), 'utf8');
    expect(outsideDeprecations(index)).not.toContain(DEPRECATED);
    expect(index).toMatch(new RegExp(`<tr><td>${DEPRECATED}</td><td>[0-9.]+</td><td>`));
    expect(index).toMatch(/<b id="count-shown">3<\/b> of 3 instances shown/);
    const stats = await readFile(path.join(dir, 'report', 'stats.html'), 'utf8');
    expect(stats).not.toContain(DEPRECATED);
    expect(stats).not.toContain('not recomputed');
    // An instance the deprecation does not touch has the very page the build rendered.
    expect(await readFile(path.join(dir, 'report', 'instances', 'numpy_1.html'), 'utf8')).toBe(
      await readFile(path.join(f.curated, 'report', 'instances', 'numpy_1.html'), 'utf8'),
    );

    const agreement = JSON.parse(await readFile(path.join(dir, 'labels', 'agreement.json'), 'utf8')) as AgreementReport;
    expect(agreement.instances).toBe(3);
    expect(agreement.disagreements).toEqual([]);
    expect(agreement.dimensions.map((d) => [d.dimension, d.kappa, d.pairs[0]!.n])).toEqual([
      ['library', 1, 3],
      ['crashType', 1, 3],
      ['rootCause', 1, 3],
      ['pipelineStage', 1, 3],
    ]);
    expect(await readFile(path.join(dir, 'labels', 'agreement.md'), 'utf8')).not.toContain(DEPRECATED);
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as ReleaseManifest;
    expect(manifest.agreement.dimensions.find((d) => d.dimension === 'crashType')!.kappa).toBe(1);
    const card = await readFile(path.join(dir, 'README.md'), 'utf8');
    expect(card).toContain('| crashType | 1.000 | 1.000 | 3 |');
    expect(card).not.toContain('not recomputed');
    expect(card).toContain(`Computed over the annotations without the deprecated instance (${DEPRECATED}).`);

    // Again, with another temporary folder for the view: byte-identical.
    const tmp = path.join(f.root, 'other-tmp');
    await mkdir(tmp);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const second = await prepareRelease(options({ writeDir: path.join(f.root, 'b') }));
      expect(second.written!.archive.sha256).toBe(written!.archive.sha256);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(os.tmpdir()).not.toBe(tmp);
  });

  it('a deprecated draft the build listed from raw/instances (in no curated file but the report) is left out of report/ too', async () => {
    const g = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }]);
    try {
      const gRaw = path.join(g.root, 'raw');
      const draft = path.join(gRaw, 'instances', 'torch_9');
      await mkdir(draft, { recursive: true });
      const numpy = JSON.parse(
        await readFile(path.join(g.curated, 'instances', 'numpy_1', 'instance.json'), 'utf8'),
      ) as Record<string, unknown>;
      await writeFile(path.join(draft, 'instance.json'), formatJson({ ...numpy, id: 'torch_9', status: 'draft' }));
      await generateReport({ from: g.curated, raw: gRaw, out: path.join(g.curated, 'report') });
      expect(await readFile(path.join(g.curated, 'report', 'index.html'), 'utf8')).toContain('torch_9');
      const deprecatedFile = path.join(g.root, 'deprecated.json');
      await writeFile(
        deprecatedFile,
        formatJson({ instances: [{ id: 'torch_9', deprecatedIn: '0.2.0', reason: 'a duplicate of torch_1' }] }),
      );
      const { plan, written } = await prepareRelease(
        options({
          curatedDir: g.curated,
          recipeDir: g.recipe,
          outDir: path.join(g.root, 'releases'),
          deprecatedFile,
          rawInstancesDir: path.join(gRaw, 'instances'),
          annotationsDir: path.join(gRaw, 'annotations'),
        }),
      );
      expect(plan.refusals).toEqual([]);
      expect(plan.manifest.files.map((x) => x.path).filter((p) => p.startsWith('report/instances/'))).toEqual([
        'report/instances/numpy_1.html',
        'report/instances/pandas_1.html',
      ]);
      const dir = await extracted(written!.archive.path);
      expect(outsideDeprecations(await readFile(path.join(dir, 'report', 'index.html'), 'utf8'))).not.toContain(
        'torch_9',
      );
    } finally {
      await rm(g.root, { recursive: true, force: true });
    }
  });

  it('the released report reads the instance folders where they are: an instance of raw/ outside the benchmark that the build lists with a problem (a link leaving its folder) keeps its row and page', async () => {
    const g = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }]);
    try {
      const gRaw = path.join(g.root, 'raw');
      const draft = path.join(gRaw, 'instances', 'torch_9');
      await mkdir(path.join(draft, 'data'), { recursive: true });
      const numpy = JSON.parse(
        await readFile(path.join(g.curated, 'instances', 'numpy_1', 'instance.json'), 'utf8'),
      ) as Record<string, unknown>;
      // Reviewed, not yet verified by a build: the build's report lists it from raw/instances, outside the benchmark.
      await writeFile(path.join(draft, 'instance.json'), formatJson({ ...numpy, id: 'torch_9' }));
      await writeFile(path.join(g.root, 'secret.txt'), 'not for the report');
      await symlink(path.join(g.root, 'secret.txt'), path.join(draft, 'data', 'leak.csv'));
      await generateReport({ from: g.curated, raw: gRaw, out: path.join(g.curated, 'report') });
      const builtPage = await readFile(path.join(g.curated, 'report', 'instances', 'torch_9.html'), 'utf8');
      expect(builtPage).toMatch(/leak\.csv.*outside the instance folder/);
      const deprecatedFile = path.join(g.root, 'deprecated.json');
      await writeFile(
        deprecatedFile,
        formatJson({
          instances: [{ id: 'pandas_1', deprecatedIn: '0.2.0', reason: 'the dataset was withdrawn by its author' }],
        }),
      );
      const { plan, written } = await prepareRelease(
        options({
          curatedDir: g.curated,
          recipeDir: g.recipe,
          outDir: path.join(g.root, 'releases'),
          deprecatedFile,
          rawInstancesDir: path.join(gRaw, 'instances'),
          annotationsDir: path.join(gRaw, 'annotations'),
        }),
      );
      expect(plan.refusals).toEqual([]);
      // The copy the release view used to make refused the folder, and the instance silently left the released report.
      expect(plan.manifest.files.map((x) => x.path).filter((p) => p.startsWith('report/instances/'))).toEqual([
        'report/instances/numpy_1.html',
        'report/instances/torch_9.html',
      ]);
      const dir = await extracted(written!.archive.path);
      expect(await readFile(path.join(dir, 'report', 'instances', 'torch_9.html'), 'utf8')).toBe(builtPage);
      expect(await readFile(path.join(dir, 'report', 'instances', 'numpy_1.html'), 'utf8')).toBe(
        await readFile(path.join(g.curated, 'report', 'instances', 'numpy_1.html'), 'utf8'),
      );
      expect(outsideDeprecations(await readFile(path.join(dir, 'report', 'index.html'), 'utf8'))).not.toContain(
        'pandas_1',
      );
    } finally {
      await rm(g.root, { recursive: true, force: true });
    }
  });

  it('without the annotations, the build figures are carried and the card says they include the deprecated instance', async () => {
    const { plan, written } = await prepareRelease(
      options({ writeDir: path.join(f.root, 'c'), annotationsDir: path.join(f.root, 'no-annotations') }),
    );
    expect(plan.refusals).toEqual([]);
    const dir = await extracted(written!.archive.path);
    expect(JSON.parse(await readFile(path.join(dir, 'labels', 'agreement.json'), 'utf8'))).toMatchObject({
      instances: 4,
    });
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toContain(
      `this release holds 3 (deprecated: ${DEPRECATED}), and the figures were not recomputed without them`,
    );
    // The report is still rendered without it: no row, no page, and the statistics page (which shows the carried
    // figures) lists none of its disagreements and says what was carried and what was left out.
    expect(outsideDeprecations(await readFile(path.join(dir, 'report', 'index.html'), 'utf8'))).not.toContain(
      DEPRECATED,
    );
    const stats = await readFile(path.join(dir, 'report', 'stats.html'), 'utf8');
    expect(stats).not.toContain(DEPRECATED);
    expect(stats).toContain('<h3>Disagreements (0) and how they were resolved</h3>');
    expect(stats).toContain('<b>Carried from the annotation study, not recomputed:</b>');
    expect(stats).toContain('1 disagreement of the withdrawn instance is left out');
    expect(stats).toContain('4 instances labelled');
  });
});

describe('prepareRelease', { timeout: 120_000 }, () => {
  it('a dry run plans the release and writes nothing', async () => {
    const writeDir = path.join(f.root, 'dry');
    const { plan, written } = await prepareRelease(options({ dryRun: true, writeDir }));
    expect(written).toBeUndefined();
    expect(plan.refusals).toEqual([]);
    expect(plan.manifest.version).toBe('0.2.0');
    expect(plan.manifest.instances.map((i) => i.id)).toEqual(['numpy_1', 'sklearn_1', 'torch_1']);
    expect(await stat(writeDir).catch(() => undefined)).toBeUndefined();
  });

  it('without SOURCE_DATE_EPOCH it dates the archive at the commit, else at 1970 and says so', async () => {
    const at = (commitTime: number | null, over: Partial<PrepareReleaseOptions> = {}) =>
      prepareRelease(
        options({
          dryRun: true,
          sourceDateEpoch: undefined,
          toolchain: { version: '0.1.0', commit: 'c0ffee', dirty: false, commitTime },
          ...over,
        }),
      );
    const committed = await at(1_767_225_000);
    expect(committed.plan.manifest.createdAt).toBe(new Date(1_767_225_000 * 1000).toISOString());
    expect(committed.plan.warnings.join('\n')).not.toMatch(/SOURCE_DATE_EPOCH/);
    const none = await at(null);
    expect(none.plan.manifest.createdAt).toBe('1970-01-01T00:00:00.000Z');
    expect(none.plan.warnings).toContain(
      'no SOURCE_DATE_EPOCH and no commit time: archive entries are dated 1970-01-01',
    );
  });

  it('with the build root, a curated/ without its build lock is released with a warning that it may be stale', async () => {
    const { plan } = await prepareRelease(options({ dryRun: true, buildRoot: f.root }));
    expect(plan.refusals).toEqual([]);
    expect(plan.warnings.join('\n')).toMatch(
      /curated\/\.build-lock\.json is not there: cannot tell whether curated\/ is up to date with its sources/,
    );
  });

  it('an invalid version is refused before anything is read', async () => {
    const e = await prepareRelease(options({ version: 'v2', curatedDir: path.join(f.root, 'nowhere') })).catch(
      (x: unknown) => x,
    );
    // Not "curated/ not found": the version is checked first.
    expect(e).toMatchObject({ code: 'E_USAGE', message: '"v2" is not a semantic version' });
  });
});

/** The page without its list of deprecated instances (which names each, with its reason and version: no row, no link). */
function outsideDeprecations(html: string): string {
  return html.replace(/<section aria-labelledby="deprecated">[\s\S]*?<\/section>/, '');
}
