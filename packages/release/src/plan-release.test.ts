import { describe, expect, it } from 'vitest';
import {
  checkSchema,
  sha256,
  type BenchmarkEntry,
  type ImageRecord,
  type InstanceChecksResult,
  type InstanceVerification,
  type Labels,
  type ReleaseManifest,
} from '@junobench/core';
import { planRelease, planRefusals, validateReleaseVersion } from './plan-release.js';
import { DEFAULT_RELEASE_METADATA } from './read-release-metadata.js';
import { agreementFixture } from '../test-helpers/release.js';
import { parseSha256Sums } from './sha256sums.js';
import type { ReleaseInputs } from './release-types.js';

const LABELS: Labels = {
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
  diagnosis: 'wrong column',
};

function entry(id: string, status: 'verified' | 'skipped' = 'verified', labels: Partial<Labels> = {}): BenchmarkEntry {
  return {
    id,
    source: {
      platform: 'kaggle',
      notebookUrl: `https://kaggle.com/code/x/${id}`,
      datasets: [{ title: `D ${id}`, license: 'CC0: Public Domain' }],
    },
    crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 2 },
    execution: { order: 'file' },
    labels: { ...LABELS, ...labels },
    requires: ['pandas'],
    syntheticData: id.endsWith('s'),
    verification:
      status === 'verified'
        ? { status, reproduced: 'crash-reproduced', fixed: 'fixed-ok' }
        : {
            status,
            reproduced: 'skipped-env',
            fixed: 'skipped-env',
            reason: 'required module tensorflow not importable',
          },
  };
}

function result(
  id: string,
  status: InstanceVerification['status'],
  reproduced = 'crash-reproduced',
  fixed = 'fixed-ok',
): InstanceVerification {
  const r = (version: 'reproduced' | 'fixed', outcome: string) => ({
    version,
    outcome,
    cells: [],
    durationMs: 1,
    runtime: { kind: 'local', packages: {} },
  });
  return {
    instance: id,
    status,
    verified: status === 'verified',
    flaky: status === 'flaky',
    reproduced: {
      ...r('reproduced', reproduced),
      ...(reproduced === 'skipped-env' ? { reason: 'required module tensorflow not importable' } : {}),
    },
    fixed: r('fixed', fixed),
    contentHash: id,
    cached: false,
  } as InstanceVerification;
}

const h = (s: string) => sha256(s);

/** A release of two instances (and a skipped-env one), every file literal. */
function inputs(over: Partial<ReleaseInputs> = {}): ReleaseInputs {
  const ids = ['numpy_1', 'pandas_1', 'tensorflow_1'];
  const csv = 'id,library,crash_type,root_cause,pipeline_stage\nnumpy_1,pandas,key error,API misuse,data preparation\n';
  return {
    version: '0.1.0',
    sourceDateEpoch: 1_767_225_600,
    toolchain: { name: 'junobench', version: '0.1.0', commit: 'c0ffee', dirty: false },
    metadata: { ...DEFAULT_RELEASE_METADATA },
    benchmark: {
      name: 'JunoBench',
      instances: [entry('numpy_1'), entry('pandas_1'), entry('tensorflow_1', 'skipped')],
    },
    benchmarkCsv: csv,
    verification: {
      runtime: 'local',
      summary: { total: 3, verified: 2, notVerified: 0, skipped: 1, flaky: 0 },
      instances: [
        result('numpy_1', 'verified'),
        result('pandas_1', 'verified'),
        result('tensorflow_1', 'skipped', 'skipped-env', 'skipped-env'),
      ],
    },
    agreement: agreementFixture(),
    instances: ids.map((id) => ({
      id,
      instance: {
        id,
        source: entry(id).source,
        crash: entry(id).crash,
        execution: { order: 'file' },
        requires: ['pandas'],
        labels: LABELS,
      },
      files: [
        { path: `instances/${id}/fixed.ipynb`, bytes: 10, sha256: h(`${id} fixed`), abs: `/x/${id}/fixed.ipynb` },
        { path: `instances/${id}/instance.json`, bytes: 20, sha256: h(`${id} json`), abs: `/x/${id}/instance.json` },
      ],
    })),
    files: [
      { path: 'benchmark.csv', bytes: Buffer.byteLength(csv), sha256: h(csv), abs: '/x/benchmark.csv' },
      { path: 'benchmark.json', bytes: 100, sha256: h('bj'), abs: '/x/benchmark.json' },
      { path: 'verification.json', bytes: 100, sha256: h('vj'), abs: '/x/verification.json' },
    ],
    image: { profile: 'debian', recipe: [], record: null, push: null },
    deprecated: [],
    drafts: [],
    previous: null,
    warnings: [],
    ...over,
  };
}

describe('planRelease', () => {
  it('plans every file of the archive with its size and sha256, sorted, generated files included', () => {
    const plan = planRelease(inputs());
    expect(plan.name).toBe('junobench-0.1.0');
    expect(plan.archiveName).toBe('junobench-0.1.0.tar.gz');
    expect(plan.tag).toBe('v0.1.0');
    expect(plan.refusals).toEqual([]);
    const paths = plan.files.map((f) => f.path);
    expect(paths).toEqual([...paths].sort());
    for (const p of [
      'CHANGELOG.md',
      'README.md',
      'SHA256SUMS',
      'benchmark.csv',
      'croissant.json',
      'manifest.json',
      'instances/pandas_1/fixed.ipynb',
    ])
      expect(paths).toContain(p);
    for (const f of plan.files) if (f.from === 'generated') expect(f.sha256).toBe(sha256(f.content));
  });

  it('writes a schema-valid manifest: skipped-env released with its reason, never counted as verified', () => {
    const plan = planRelease(inputs());
    const m = plan.manifest;
    expect(checkSchema('release-manifest', m)).toEqual([]);
    expect(m.totals).toMatchObject({ instances: 3, verified: 2, skippedEnv: 1 });
    expect(m.verification).toEqual({ runtime: 'local', total: 3, verified: 2, skippedEnv: 1 });
    const tf = m.instances.find((i) => i.id === 'tensorflow_1')!;
    expect(tf.status).toBe('skipped-env');
    expect(tf.reason).toMatch(/tensorflow/);
    expect(m.createdAt).toBe('2026-01-01T00:00:00.000Z');
    expect(m.toolchain).toEqual({ name: 'junobench', version: '0.1.0', commit: 'c0ffee', dirty: false });
    // The manifest lists everything but itself and SHA256SUMS.
    const listed = [...m.instances.flatMap((i) => i.files), ...m.files].map((f) => f.path);
    expect(listed).not.toContain('manifest.json');
    expect(listed).toContain('README.md');
    expect(listed.length).toBe(plan.files.length - 2);
  });

  it('SHA256SUMS lists every other file with the planned sha256', () => {
    const plan = planRelease(inputs());
    const sums = plan.files.find((f) => f.path === 'SHA256SUMS')!;
    const lines = parseSha256Sums(sums.from === 'generated' ? sums.content : '');
    expect(lines.map((l) => l.path)).toEqual(plan.files.filter((f) => f.path !== 'SHA256SUMS').map((f) => f.path));
    for (const l of lines) expect(l.sha256).toBe(plan.files.find((f) => f.path === l.path)!.sha256);
  });

  it('is a pure function: the same inputs give the same plan', () => {
    const a = planRelease(inputs());
    const b = planRelease(inputs());
    expect(b.files.map((f) => [f.path, f.sha256])).toEqual(a.files.map((f) => [f.path, f.sha256]));
  });

  it('the dataset card has Hugging Face front matter and the skipped-env instance listed', () => {
    const card = planRelease(inputs()).files.find((f) => f.path === 'README.md')!;
    const text = card.from === 'generated' ? card.content : '';
    expect(text.startsWith('---\nlicense: other\n')).toBe(true);
    for (const key of [
      'pretty_name:',
      'task_categories:',
      'tags:',
      'size_categories:',
      '  - n<1K',
      'configs:',
      '        path: benchmark.csv',
    ])
      expect(text).toContain(key);
    for (const section of [
      '## How it was built',
      '## Structure',
      '## Label definitions',
      '## Agreement',
      '## Statistics',
      '## Run every case',
      '## Licences',
      '## Citation',
    ])
      expect(text).toContain(section);
    expect(text).toMatch(/\| tensorflow_1 \|.*\| skipped-env: required module tensorflow/);
  });

  it('leaves deprecated instances out, lists them, and the changelog says why they went', () => {
    const previous = planRelease(inputs()).manifest;
    const plan = planRelease(
      inputs({
        version: '0.2.0',
        previous,
        deprecated: [{ id: 'pandas_1', deprecatedIn: '0.2.0', reason: 'dataset withdrawn' }],
      }),
    );
    expect(plan.refusals).toEqual([]);
    expect(plan.manifest.instances.map((i) => i.id)).toEqual(['numpy_1', 'tensorflow_1']);
    expect(plan.manifest.deprecated).toEqual([{ id: 'pandas_1', deprecatedIn: '0.2.0', reason: 'dataset withdrawn' }]);
    expect(plan.files.some((f) => f.path.startsWith('instances/pandas_1/'))).toBe(false);
    expect(plan.changelog.removed).toEqual([
      { id: 'pandas_1', deprecated: { id: 'pandas_1', deprecatedIn: '0.2.0', reason: 'dataset withdrawn' } },
    ]);
    const log = plan.files.find((f) => f.path === 'CHANGELOG.md')!;
    expect(log.from === 'generated' && log.content).toContain('pandas_1 — deprecated in 0.2.0: dataset withdrawn');
  });

  it('records the changes since the previous release: files, labels, verification', () => {
    const previous: ReleaseManifest = planRelease(inputs()).manifest;
    const next = inputs({ version: '0.1.1', previous });
    next.instances[0]!.files[0] = { ...next.instances[0]!.files[0]!, sha256: h('changed'), bytes: 11 };
    next.benchmark.instances[1] = entry('pandas_1', 'verified', { crashType: 'value error' });
    const plan = planRelease(next);
    expect(plan.changelog.previous).toBe('0.1.0');
    expect(plan.changelog.changed).toEqual([
      { id: 'numpy_1', files: { added: [], removed: [], modified: ['fixed.ipynb'] }, labels: [], verification: [] },
      {
        id: 'pandas_1',
        files: { added: [], removed: [], modified: [] },
        labels: [{ dimension: 'crashType', from: 'key error', to: 'value error' }],
        verification: [],
      },
    ]);
    expect(plan.manifest.previous).toEqual({ version: '0.1.0' });
  });

  it('names the pushed image by digest in the manifest', () => {
    const push = {
      repository: '127.0.0.1:5117/junobench/benchmark',
      tag: '0.1.0',
      digest: `sha256:${'a'.repeat(64)}`,
      reference: `127.0.0.1:5117/junobench/benchmark@sha256:${'a'.repeat(64)}`,
    };
    const plan = planRelease(inputs({ image: { profile: 'debian', recipe: [], record: null, push } }));
    expect(plan.manifest.image.registry).toEqual(push);
    const card = plan.files.find((f) => f.path === 'README.md')!;
    expect(card.from === 'generated' && card.content).toContain(push.reference);
  });
});

describe('the dataset card names the toolchain and where the notebooks come from', () => {
  const cardOf = (i: ReleaseInputs) => {
    const f = planRelease(i).files.find((x) => x.path === 'README.md')!;
    return f.from === 'generated' ? f.content : '';
  };

  it("clones the toolchain's repository at the commit that made the release, its version apart from the dataset's", () => {
    const card = cardOf(
      inputs({ metadata: { ...DEFAULT_RELEASE_METADATA, toolchainRepository: 'https://github.com/org/junobench' } }),
    );
    expect(card).toContain(
      'git clone https://github.com/org/junobench junobench-toolchain && git -C junobench-toolchain checkout --detach c0ffee && npm ci --prefix junobench-toolchain',
    );
    expect(card).toContain(
      'This is version 0.1.0 of the dataset; it was prepared by the junobench toolchain 0.1.0, commit c0ffee',
    );
  });

  it('says so, with no placeholder, when the repository is not known', () => {
    const card = cardOf(inputs());
    expect(card).toContain("This release does not record where to clone it (the toolchain's repository is not known)");
    expect(card).not.toMatch(/git clone/);
    expect(card).not.toMatch(/<(the|a|your) [^>]*>/);
  });

  it('"collected from Kaggle" only when every notebook is a Kaggle one', () => {
    expect(cardOf(inputs())).toContain('notebooks collected from Kaggle.');
    const i = inputs();
    i.benchmark.instances = i.benchmark.instances.map((e) =>
      e.id === 'numpy_1' ? e : { ...e, source: { platform: 'local' as const, datasets: [] } },
    );
    const card = cardOf(i);
    expect(card).not.toContain('collected from Kaggle.');
    expect(card).toContain('collected from local notebooks (2) and Kaggle (1)');
  });
});

describe('the dataset card says what is true of the release', () => {
  const cardOf = (i: ReleaseInputs) => {
    const f = planRelease(i).files.find((x) => x.path === 'README.md')!;
    return f.from === 'generated' ? f.content : '';
  };
  const push = {
    repository: '127.0.0.1:5117/junobench/benchmark',
    tag: '0.1.0',
    digest: `sha256:${'a'.repeat(64)}`,
    reference: `127.0.0.1:5117/junobench/benchmark@sha256:${'a'.repeat(64)}`,
  };
  const record: ImageRecord = {
    profile: 'debian',
    tag: 'junobench/benchmark:debian-0123456789ab',
    imageId: 'sha256:' + 'b'.repeat(64),
    size: 1,
    recipeHash: 'r'.repeat(64),
    base: 'junobench/base:bookworm',
    packages: {},
    modules: {},
    unavailable: {},
  };
  // The docker command a downloader can run: with no pushed image, the name the card's own rebuild line gives it
  // (a bare --runtime docker found no image); with a pushed one, no --image (it would turn off the pull by digest).
  const cases: [string, ReleaseInputs['image'], string, boolean][] = [
    [
      'no image built',
      { profile: 'debian', recipe: [], record: null, push: null },
      '--runtime docker --image junobench/benchmark:0.1.0',
      true,
    ],
    [
      'an image built, not pushed',
      { profile: 'debian', recipe: [], record, push: null },
      '--runtime docker --image junobench/benchmark:0.1.0',
      true,
    ],
    ['an image pushed', { profile: 'debian', recipe: [], record, push }, '--runtime docker   # in the image', false],
  ];
  it.each(cases)('%s: the docker command names an image the reader can have', (_n, image, command, rebuildFirst) => {
    const card = cardOf(inputs({ image }));
    const run = card.slice(card.indexOf('## Run every case'), card.indexOf('## Licences'));
    // Run from the folder of the archive with the toolchain's checkout beside it: the toolchain is not an npm package,
    // so a bare `npx junobench` there asks the registry for one.
    expect(run).toContain(
      `npx --prefix junobench-toolchain junobench release verify junobench-0.1.0.tar.gz ${command}`,
    );
    // The dataset's tag is not the toolchain's: no clone of v0.1.0, and no placeholder for the repository.
    expect(run).not.toContain('--branch v0.1.0');
    expect(run).not.toContain('<the toolchain');
    expect(run).not.toMatch(/^npx junobench/m);
    // The rebuild from the same folder: the archive extracted first, no `cd` that would break the relative paths after
    // it.
    expect(run).toContain(
      'tar xzf junobench-0.1.0.tar.gz && docker build -f junobench-0.1.0/image/Dockerfile.debian -t junobench/benchmark:0.1.0 junobench-0.1.0/image',
    );
    expect(run.indexOf('docker build') < run.indexOf('```sh')).toBe(rebuildFirst);
    expect(run).not.toMatch(/--image 127\.0\.0\.1/);
  });

  it('marks subsampled data as subsampled, not original', () => {
    const i = inputs();
    i.instances[1]!.instance.data = {
      subsample: { seed: 1, steps: [{ method: 'table', path: 'sales.csv', parameters: { rows: 10 } }] },
    } as never;
    const card = cardOf(i);
    expect(card).toMatch(/\| pandas_1 \|.*\| subsampled \|$/m);
    expect(card).toMatch(/\| numpy_1 \|.*\| original \|$/m);
  });

  it('says the agreement figures were not recomputed when they count a deprecated instance', () => {
    const plain = cardOf(inputs());
    expect(plain).not.toMatch(/not recomputed/);
    const card = cardOf(
      inputs({
        version: '0.2.0',
        deprecated: [{ id: 'pandas_1', deprecatedIn: '0.2.0', reason: 'dataset withdrawn' }],
      }),
    );
    expect(card).toContain(
      'These are the figures of the annotation of 3 instances; this release holds 2 (deprecated: pandas_1), and the figures were not recomputed without them.',
    );
  });

  it('says the figures leave the deprecated instances out when they were recomputed without them', () => {
    const card = cardOf(
      inputs({
        version: '0.2.0',
        deprecated: [{ id: 'pandas_1', deprecatedIn: '0.2.0', reason: 'dataset withdrawn' }],
        agreementRecomputed: true,
      }),
    );
    expect(card).not.toMatch(/not recomputed/);
    expect(card).toContain('Computed over the annotations without the deprecated instance (pandas_1).');
    expect(cardOf(inputs())).not.toContain('Computed over the annotations without');
  });
});

describe('planRefusals', () => {
  const cases: [string, (i: ReleaseInputs) => void, string[]][] = [
    ['a verified, skipped-env benchmark', () => undefined, []],
    [
      'an instance not verified (left out of benchmark.json by the build)',
      (i) => {
        i.verification.instances.push(result('sklearn_1', 'not-verified', 'crash-mismatch'));
      },
      ['not-verified sklearn_1'],
    ],
    [
      'a flaky instance',
      (i) => {
        i.verification.instances[0] = {
          ...result('numpy_1', 'flaky'),
          repeats: { reproduced: ['crash-reproduced', 'no-crash'], fixed: ['fixed-ok', 'fixed-ok'] },
        };
      },
      ['flaky numpy_1'],
    ],
    [
      'a draft',
      (i) => {
        i.instances[1]!.instance.status = 'draft';
      },
      ['draft pandas_1'],
    ],
    [
      'a draft in raw/instances that the build left out',
      (i) => {
        i.drafts = ['sklearn_9'];
        i.verification.instances.push(result('sklearn_9', 'verified'));
      },
      ['draft sklearn_9'],
    ],
    [
      'an instance never verified',
      (i) => {
        i.verification.instances.splice(1, 1);
      },
      ['not-run pandas_1'],
    ],
    [
      'agreement below the gate',
      (i) => {
        i.agreement = agreementFixture({ rootCause: 0.85 });
      },
      ['agreement-below-gate'],
    ],
    [
      'no agreement report',
      (i) => {
        i.agreement = null;
      },
      ['agreement-missing'],
    ],
    [
      'a version not greater than the previous one',
      (i) => {
        i.previous = { ...planRelease(inputs()).manifest, version: '0.1.0' };
      },
      ['version-not-greater'],
    ],
    [
      'several reasons at once',
      (i) => {
        i.instances[0]!.instance.status = 'draft';
        i.verification.instances[1] = result('pandas_1', 'not-verified', 'no-crash');
        i.agreement = agreementFixture({ library: null });
      },
      ['draft numpy_1', 'not-verified pandas_1', 'agreement-below-gate'],
    ],
  ];
  it.each(cases)('%s', (_name, mutate, expected) => {
    const i = inputs();
    mutate(i);
    const refusals = planRefusals(i);
    expect(refusals.map((r) => `${r.code}${r.instance ? ` ${r.instance}` : ''}`)).toEqual(expected);
    for (const r of refusals) expect(r.message.length).toBeGreaterThan(10);
  });

  it('explains a not-verified instance with its outcome', () => {
    const i = inputs();
    i.verification.instances.push({
      ...result('sklearn_1', 'not-verified', 'crash-mismatch'),
      reproduced: {
        ...result('sklearn_1', 'not-verified', 'crash-mismatch').reproduced,
        reason: 'expected KeyError, got ValueError',
      },
    });
    expect(planRefusals(i)[0]!.message).toBe(
      'sklearn_1 is not verified: reproduced crash-mismatch (expected KeyError, got ValueError)',
    );
  });

  it('a deprecated instance is neither refused nor released', () => {
    const i = inputs({ deprecated: [{ id: 'sklearn_1', deprecatedIn: '0.1.0', reason: 'broken' }] });
    i.verification.instances.push(result('sklearn_1', 'not-verified', 'crash-mismatch'));
    expect(planRefusals(i)).toEqual([]);
  });
});

describe('checks: what a repair must achieve, mutation-tested', () => {
  const checked = (
    instance: string,
    status: InstanceChecksResult['status'],
    over: Partial<InstanceChecksResult> = {},
  ) =>
    ({
      instance,
      status,
      checks: [{ name: 'check_units', reason: '`units` is integer' }],
      fixed: { runs: 2, passed: 2 },
      mutants: [],
      score: { generated: 20, rejected: status === 'survivors' ? 19 : 20, value: 1 },
      survivors: status === 'survivors' || status === 'waived' ? ['guard-if-len@6:1'] : [],
      waived: status === 'waived' ? [{ mutant: 'guard-if-len@6:1', reason: 'the guard is the fix' }] : [],
      contentHash: instance,
      ...over,
    }) as InstanceChecksResult;
  const withChecks = (...results: InstanceChecksResult[]) =>
    inputs({
      checks: {
        runtime: 'local',
        summary: { instances: 0, mutants: 0, rejected: 0, complete: 0, skipped: 0 },
        instances: results,
      },
    });

  it('refuses an instance whose checks let a mutant survive unwaived, or that is untested or missing', () => {
    const refusals = planRefusals(
      withChecks(checked('numpy_1', 'survivors'), checked('tensorflow_1', 'skipped-env')),
    ).filter((r) => r.code === 'checks');
    expect(refusals).toEqual([
      {
        code: 'checks',
        instance: 'numpy_1',
        message:
          'numpy_1: its checks let 1 mutant survive (guard-if-len@6:1): strengthen checks.py, or waive each in instance.json (checks.waive) with a reason',
      },
      {
        code: 'checks',
        instance: 'pandas_1',
        message: 'pandas_1 has no entry in checks.json: run `junobench checks test pandas_1 --record`, then build',
      },
    ]);
    const untested = planRefusals(
      withChecks(
        checked('numpy_1', 'untested', { reason: 'its files changed' }),
        checked('pandas_1', 'complete'),
        checked('tensorflow_1', 'skipped-env'),
      ),
    );
    expect(untested.map((r) => r.message)).toEqual(['numpy_1: its checks are untested (its files changed)']);
  });

  it('releases waived survivors and records every instance’s checks in the manifest and the card', () => {
    const plan = planRelease(
      withChecks(checked('numpy_1', 'waived'), checked('pandas_1', 'complete'), checked('tensorflow_1', 'skipped-env')),
    );
    expect(plan.refusals).toEqual([]);
    expect(plan.manifest.instances[0]!.checks).toEqual({
      checks: [{ name: 'check_units', reason: '`units` is integer' }],
      status: 'waived',
      mutants: 20,
      rejected: 20,
      waived: [{ mutant: 'guard-if-len@6:1', reason: 'the guard is the fix' }],
    });
    expect(checkSchema('release-manifest', plan.manifest)).toEqual([]);
    const card = plan.files.find((f) => f.path === 'README.md')! as { content: string };
    expect(card.content).toContain('## What a repair must achieve');
    expect(card.content).toContain(
      '| numpy_1 | `check_units`: `units` is integer | 20/20 (waived: guard-if-len@6:1: the guard is the fix) |',
    );
    expect(card.content).toContain('| tensorflow_1 | `check_units`: `units` is integer | not run here (skipped-env) |');
  });

  it('refuses nothing for checks when the curated tree has no checks.json (made before checks)', () => {
    expect(planRefusals(inputs()).filter((r) => r.code === 'checks')).toEqual([]);
  });
});

describe('validateReleaseVersion', () => {
  it.each(['0.1.0', '1.2.3-rc.1', '10.20.30'])('accepts %s', (v) => expect(validateReleaseVersion(v)).toBe(v));
  it.each(['v0.1.0', '0.1', 'latest', '01.2.3', '', '2.0.0+build.5'])('refuses %j', (v) =>
    expect(() => validateReleaseVersion(v)).toThrow(/not a semantic version/),
  );
});
