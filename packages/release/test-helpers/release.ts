// Test-only: a small curated benchmark written to a temporary folder, laid out
// and formatted exactly as `junobench build` writes one (schema-valid files),
// so the release code can be exercised on real files without a build.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  formatJson,
  type AgreementReport,
  type Benchmark,
  type BenchmarkEntry,
  type Instance,
  type InstanceVerification,
  type Labels,
  type Outcome,
  type VerificationReport,
  type VersionResult,
} from '@junobench/core';
import { readReleaseInputs } from '../src/read-release-inputs.js';
import type { ReleaseInputs } from '../src/release-types.js';

export interface FixtureInstance {
  id: string;
  status?: 'verified' | 'skipped' | 'not-verified' | 'flaky';
  labels?: Partial<Labels>;
  draft?: boolean;
  /** Extra data files: name → content. */
  data?: Record<string, string>;
}

export interface Fixture {
  root: string;
  curated: string;
  recipe: string;
  runner: string;
  releases: string;
}

const DEFAULT_LABELS: Labels = {
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
  diagnosis: 'The column is named "Price", not "price".',
};

const CSV_COLUMNS = [
  'id',
  'platform',
  'notebook_url',
  'datasets',
  'dataset_licenses',
  'dataset_urls',
  'synthetic_data',
  'crash_ename',
  'crash_evalue',
  'crash_match',
  'crash_cell',
  'execution_order',
  'requires',
  'library',
  'crash_type',
  'root_cause',
  'pipeline_stage',
  'diagnosis',
  'verification_status',
  'reproduced_outcome',
  'fixed_outcome',
  'verification_note',
];

function notebook(source: string): string {
  return formatJson({
    cells: [{ cell_type: 'code', execution_count: null, id: 'c0', metadata: {}, outputs: [], source }],
    metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
    nbformat: 4,
    nbformat_minor: 5,
  });
}

function versionResult(version: 'reproduced' | 'fixed', outcome: Outcome, reason?: string): VersionResult {
  return {
    version,
    outcome,
    ...(reason ? { reason } : {}),
    ...(outcome === 'crash-reproduced' ? { observed: { ename: 'KeyError', evalue: "'price'", cell: 0 } } : {}),
    cells: [],
    durationMs: 10,
    runtime: { kind: 'local', packages: { pandas: '1.5.3' } },
  };
}

function outcomes(status: FixtureInstance['status']): { reproduced: Outcome; fixed: Outcome; reason?: string } {
  switch (status) {
    case 'skipped':
      return {
        reproduced: 'skipped-env',
        fixed: 'skipped-env',
        reason: 'required module tensorflow not importable in /usr/bin/python3',
      };
    case 'not-verified':
      return { reproduced: 'crash-mismatch', fixed: 'fixed-ok', reason: "expected KeyError, got ValueError: 'x'" };
    default:
      return { reproduced: 'crash-reproduced', fixed: 'fixed-ok' };
  }
}

function csvCell(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export function agreementFixture(
  kappas: Partial<Record<'library' | 'crashType' | 'rootCause' | 'pipelineStage', number | null>> = {},
  n = 3,
): AgreementReport {
  const dims = ['library', 'crashType', 'rootCause', 'pipelineStage'] as const;
  return {
    annotators: ['annotator-a', 'annotator-b'],
    instances: n,
    singlyAnnotated: [],
    settings: { seed: 'junobench', bootstrap: 0, confidence: 0.95 },
    dimensions: dims.map((dimension) => {
      const kappa = kappas[dimension] === undefined ? 1 : kappas[dimension]!;
      return {
        dimension,
        kappa,
        pairs: [
          {
            annotators: ['annotator-a', 'annotator-b'],
            n,
            categories: ['pandas'],
            observed: 1,
            chance: 0.5,
            kappa,
            se: 0,
            se0: 0.1,
            z: 10,
            ciAsymptotic: null,
            bootstrap: null,
            perCategory: [],
          },
        ],
        alpha: { alpha: kappa, units: n, pairableValues: 2 * n, observedDisagreement: 0, expectedDisagreement: 0.5 },
      };
    }),
    disagreements: [],
  };
}

/** Write a curated benchmark (and a recipe folder) under a new temporary folder. */
export async function writeCuratedFixture(
  instances: readonly FixtureInstance[],
  options: { agreement?: AgreementReport; parent?: string } = {},
): Promise<Fixture> {
  const root = await mkdtemp(path.join(options.parent ?? os.tmpdir(), 'junobench-release-test-'));
  const curated = path.join(root, 'curated');
  const recipe = path.join(root, 'docker');
  const runner = path.join(root, 'runner');
  await mkdir(recipe, { recursive: true });
  await mkdir(runner, { recursive: true });
  await writeFile(
    path.join(recipe, 'Dockerfile.debian'),
    'FROM junobench/base:bookworm\nCOPY runner/ /opt/junobench/\n',
  );
  await writeFile(
    path.join(recipe, 'debian.lock.json'),
    formatJson({
      profile: 'debian',
      tag: 'junobench/benchmark:debian-0123456789ab',
      base: 'junobench/base:bookworm',
      python: '3.11.2',
      recipe: { 'python3-pandas': '1.5.3' },
      installed: { 'python3-pandas': '1.5.3' },
    }),
  );
  await writeFile(path.join(runner, 'junobench_runner.py'), 'print("runner")\n');

  const entries: BenchmarkEntry[] = [];
  const results: InstanceVerification[] = [];
  for (const fi of instances) {
    const status = fi.status ?? 'verified';
    const labels: Labels = { ...DEFAULT_LABELS, ...fi.labels };
    const inst: Instance & { status?: string } = {
      id: fi.id,
      source: {
        platform: 'kaggle',
        notebookUrl: `https://www.kaggle.com/code/someone/${fi.id}`,
        datasets: [
          {
            title: `Data of ${fi.id}`,
            license: 'CC0: Public Domain',
            url: `https://www.kaggle.com/datasets/someone/${fi.id}`,
          },
        ],
      },
      crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 0 },
      execution: { order: 'file' },
      requires: ['pandas'],
      labels,
      ...(fi.draft ? { status: 'draft' } : {}),
    };
    const o = outcomes(status);
    const v: InstanceVerification = {
      instance: fi.id,
      status: status === 'flaky' ? 'flaky' : status,
      verified: status === 'verified',
      flaky: status === 'flaky',
      reproduced: versionResult('reproduced', o.reproduced, o.reason),
      fixed: versionResult('fixed', o.fixed, status === 'skipped' ? o.reason : undefined),
      contentHash: `hash-${fi.id}`,
      cached: false,
      ...(status === 'flaky'
        ? {
            repeats: {
              reproduced: ['crash-reproduced', 'no-crash'] as Outcome[],
              fixed: ['fixed-ok', 'fixed-ok'] as Outcome[],
            },
          }
        : {}),
    };
    results.push(v);
    // The build leaves instances that are neither verified nor skipped out of benchmark.json and curated/instances.
    if (status !== 'verified' && status !== 'skipped') continue;
    const dir = path.join(curated, 'instances', fi.id);
    await mkdir(path.join(dir, 'data'), { recursive: true });
    await writeFile(
      path.join(dir, 'original.ipynb'),
      notebook(`import pandas as pd\ndf = pd.read_csv('data/train.csv')\ndf['price']  # ${fi.id}`),
    );
    await writeFile(
      path.join(dir, 'reproduced.ipynb'),
      notebook(`import pandas as pd\ndf = pd.read_csv('data/train.csv')\ndf['price']`),
    );
    await writeFile(
      path.join(dir, 'fixed.ipynb'),
      notebook(`import pandas as pd\ndf = pd.read_csv('data/train.csv')\ndf['Price']`),
    );
    await writeFile(path.join(dir, 'data', 'train.csv'), `Price\n1\n2\n# ${fi.id}\n`);
    for (const [name, content] of Object.entries(fi.data ?? {})) await writeFile(path.join(dir, 'data', name), content);
    await writeFile(path.join(dir, 'instance.json'), formatJson(inst));
    entries.push({
      id: fi.id,
      source: inst.source,
      crash: inst.crash,
      execution: inst.execution,
      labels,
      requires: inst.requires,
      syntheticData: false,
      verification: {
        status,
        reproduced: o.reproduced,
        fixed: o.fixed,
        ...(status === 'skipped' && o.reason ? { reason: o.reason } : {}),
      },
    });
  }
  // As the build writes them: by id, whatever order the folders were made in.
  const byId = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  entries.sort((x, y) => byId(x.id, y.id));
  results.sort((x, y) => byId(x.instance, y.instance));
  const benchmark: Benchmark = { name: 'JunoBench', instances: entries };
  const summary = {
    total: results.length,
    verified: results.filter((r) => r.status === 'verified').length,
    notVerified: results.filter((r) => r.status === 'not-verified').length,
    skipped: results.filter((r) => r.status === 'skipped').length,
    flaky: results.filter((r) => r.status === 'flaky').length,
  };
  const verification: VerificationReport = { runtime: 'local', summary, instances: results };
  await mkdir(path.join(curated, 'labels'), { recursive: true });
  await mkdir(path.join(curated, 'stats'), { recursive: true });
  await writeFile(path.join(curated, 'benchmark.json'), formatJson(benchmark));
  await writeFile(path.join(curated, 'verification.json'), formatJson(verification));
  await writeFile(
    path.join(curated, 'labels', 'agreement.json'),
    formatJson(options.agreement ?? agreementFixture({}, instances.length)),
  );
  await writeFile(path.join(curated, 'labels', 'agreement.md'), '# Agreement\n\nkappa 1.000 in every dimension\n');
  await writeFile(path.join(curated, 'stats', 'stats.md'), `# Statistics\n\n${entries.length} instances\n`);
  const rows = entries.map((e) => [
    e.id,
    e.source.platform,
    e.source.notebookUrl ?? '',
    e.source.datasets.map((d) => d.title).join('; '),
    e.source.datasets.map((d) => d.license).join('; '),
    e.source.datasets.map((d) => d.url ?? '').join('; '),
    'no',
    e.crash.ename,
    e.crash.evalue,
    e.crash.match,
    String(e.crash.cell),
    'file',
    e.requires.join(' '),
    e.labels.library,
    e.labels.crashType,
    e.labels.rootCause,
    e.labels.pipelineStage,
    e.labels.diagnosis ?? '',
    e.verification.status,
    e.verification.reproduced ?? '',
    e.verification.fixed ?? '',
    e.verification.reason ?? '',
  ]);
  await writeFile(
    path.join(curated, 'benchmark.csv'),
    [CSV_COLUMNS, ...rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n',
  );
  return { root, curated, recipe, runner, releases: path.join(root, 'releases') };
}

/** readReleaseInputs on a fixture, with a fixed toolchain and SOURCE_DATE_EPOCH. */
export function readFixtureInputs(
  f: Fixture,
  version: string,
  extra: { previous?: string; deprecatedFile?: string; sourceDateEpoch?: number } = {},
): Promise<ReleaseInputs> {
  return readReleaseInputs({
    version,
    curatedDir: f.curated,
    recipeDir: f.recipe,
    contextFiles: [{ path: 'runner/junobench_runner.py', abs: path.join(f.runner, 'junobench_runner.py') }],
    outDir: f.releases,
    sourceDateEpoch: extra.sourceDateEpoch ?? 1_767_225_600,
    toolchain: {
      name: 'junobench',
      version: '0.1.0',
      commit: '0123456789abcdef0123456789abcdef01234567',
      dirty: false,
    },
    ...(extra.previous ? { previous: extra.previous } : {}),
    ...(extra.deprecatedFile ? { deprecatedFile: extra.deprecatedFile } : {}),
  });
}
