import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JunoError,
  checkSchema,
  formatJson,
  type ReleasePrepareReport,
  type ReleaseVerifyReport,
  type VerificationReport,
} from '@junobench/core';
import { checkRelease, openRelease } from './open-release.js';
import { planRelease } from './plan-release.js';
import { readFixtureInputs, writeCuratedFixture, type Fixture } from '../test-helpers/release.js';
import { writeRelease, type WrittenRelease } from './write-release.js';
import {
  planReleasePrepareReport,
  planReleaseVerifyReport,
  writeReleasePrepareReport,
  writeReleaseVerifyReport,
  type ReleaseVerifyOutcome,
} from './write-release-report.js';

let f: Fixture;
let next: Fixture;
let refused: Fixture;
let release: WrittenRelease;
let verification: VerificationReport;
const prepare: Record<string, ReleasePrepareReport> = {};
const verify: Record<string, ReleaseVerifyReport> = {};

/**
 * What release verify finds for a release (the static checks, as pipeline's verifyRelease runs them), plus an optional
 * re-run.
 */
async function checked(input: string, rerun?: ReleaseVerifyOutcome['rerun']): Promise<ReleaseVerifyOutcome> {
  const opened = await openRelease(input);
  try {
    const c = await checkRelease(opened);
    return {
      version: c.manifest?.version ?? null,
      ...(opened.archive ? { archive: opened.archive } : {}),
      problems: c.problems,
      filesChecked: c.filesChecked,
      bytesChecked: c.bytesChecked,
      ...(rerun
        ? { rerun }
        : c.problems.length > 0
          ? { rerunRefused: `the release failed ${c.problems.length} checks above` }
          : {}),
      ok: c.problems.length === 0 && (rerun?.differences.length ?? 0) === 0,
    };
  } finally {
    await opened.close();
  }
}

// Real plans and releases of the fixture benchmark: written, dry-run refused, and a second version with a changelog.
beforeAll(async () => {
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }, { id: 'tensorflow_1', status: 'skipped' }]);
  const plan = planRelease(await readFixtureInputs(f, '0.1.0'));
  release = await writeRelease(plan, f.releases);
  prepare.written = planReleasePrepareReport(plan, release.archive);

  refused = await writeCuratedFixture([
    { id: 'numpy_1' },
    { id: 'pandas_1', status: 'not-verified' },
    { id: 'torch_1', status: 'flaky' },
  ]);
  prepare.refused = planReleasePrepareReport(planRelease(await readFixtureInputs(refused, '0.1.0')));

  next = await writeCuratedFixture([
    { id: 'pandas_1', labels: { rootCause: 'data confusion' } },
    { id: 'pandas_2' },
    { id: 'tensorflow_1', status: 'skipped' },
  ]);
  const deprecatedFile = path.join(next.root, 'deprecated.json');
  await writeFile(
    deprecatedFile,
    formatJson({ instances: [{ id: 'numpy_1', deprecatedIn: '0.2.0', reason: 'its dataset was withdrawn' }] }),
  );
  prepare.changelog = planReleasePrepareReport(
    planRelease(
      await readFixtureInputs(next, '0.2.0', { previous: path.join(f.releases, 'junobench-0.1.0'), deprecatedFile }),
    ),
  );

  verification = JSON.parse(await readFile(path.join(f.curated, 'verification.json'), 'utf8')) as VerificationReport;
  verify.checked = planReleaseVerifyReport(await checked(release.archive.path));
  verify.rerun = planReleaseVerifyReport(
    await checked(release.dir, {
      runtime: 'local',
      instances: 3,
      differences: [
        {
          instance: 'pandas_1',
          expected: { status: 'verified', reproduced: 'crash-reproduced', fixed: 'fixed-ok' },
          observed: { status: 'not-verified', reproduced: 'no-crash', fixed: 'fixed-ok' },
          message: 'pandas_1: reproduced crash-reproduced → no-crash',
        },
      ],
      unchecked: [{ instance: 'tensorflow_1', reason: 'required module tensorflow not importable' }],
      improved: [],
      report: verification,
    }),
  );
  const sums = path.join(release.dir, 'SHA256SUMS');
  await writeFile(
    sums,
    (await readFile(sums, 'utf8')).replace(/^[0-9a-f]/, (c) => (c === '0' ? '1' : '0')),
  );
  verify.tampered = planReleaseVerifyReport(await checked(release.dir));
}, 120_000);

afterAll(async () => {
  for (const x of [f, refused, next]) if (x) await rm(x.root, { recursive: true, force: true });
});

describe('release prepare --json', () => {
  it.each(['written', 'refused', 'changelog'])(
    'the %s report of a real plan matches release-prepare-report',
    async (which) => {
      const report = prepare[which]!;
      expect(checkSchema('release-prepare-report', report)).toEqual([]);
      const file = path.join(f.root, `prepare-${which}.json`);
      await writeReleasePrepareReport(file, report);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));
    },
  );

  it('each report says what it should', () => {
    expect(prepare.written).toMatchObject({
      version: '0.1.0',
      refusals: [],
      archive: { path: release.archive.path, sha256: release.archive.sha256 },
    });
    expect(prepare.refused!.archive).toBeUndefined();
    expect(prepare.refused!.refusals.map((r) => r.code).sort()).toEqual(['flaky', 'not-verified']);
    expect(prepare.changelog!.changelog).toMatchObject({
      previous: '0.1.0',
      added: ['pandas_2'],
      removed: [{ id: 'numpy_1', deprecated: { id: 'numpy_1', deprecatedIn: '0.2.0' } }],
      changed: [{ id: 'pandas_1', labels: [{ dimension: 'rootCause', from: 'API misuse', to: 'data confusion' }] }],
    });
  });
});

describe('release verify --json', () => {
  it.each(['checked', 'rerun', 'tampered'])(
    'the %s report of a real check matches release-verify-report',
    async (which) => {
      const report = verify[which]!;
      expect(checkSchema('release-verify-report', report)).toEqual([]);
      const file = path.join(f.root, `verify-${which}.json`);
      await writeReleaseVerifyReport(file, report);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));
    },
  );

  it('each report says what it should; the parsed manifest and the re-run report are not repeated', () => {
    expect(verify.checked).toMatchObject({
      version: '0.1.0',
      problems: [],
      ok: true,
      archive: { sha256: release.archive.sha256 },
    });
    expect(verify.checked).not.toHaveProperty('rerun');
    expect(verify.rerun).toMatchObject({ ok: false, rerun: { instances: 3, improved: [] }, verification });
    expect(verify.rerun!.rerun).not.toHaveProperty('report');
    expect(verify.rerun).not.toHaveProperty('manifest');
    expect(verify.tampered!.problems.length).toBeGreaterThan(0);
    expect(verify.tampered).toMatchObject({ ok: false, rerunRefused: expect.stringMatching(/failed/) });
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reports are broken on purpose, field by field
type Report = any;

// Broken copies of the real reports: each is an internal error naming the field, and no file is written.
describe.each([
  ['prepare', 'release-prepare-report', () => prepare.changelog!, writeReleasePrepareReport],
  ['verify', 'release-verify-report', () => verify.rerun!, writeReleaseVerifyReport],
] as const)('broken release %s reports', (_verb, schema, real, write) => {
  const cases: Record<string, [string, (r: Report) => unknown, string][]> = {
    'release-prepare-report': [
      ['a version that is not semver', (r) => (r.version = 'v1'), 'version'],
      ['an unknown refusal code', (r) => r.refusals.push({ code: 'too-big', message: 'x' }), 'refusals[0].code'],
      ['a file without its hash', (r) => delete r.files[0].sha256, 'files[0] is missing required property "sha256"'],
      ['a negative file size', (r) => (r.files[1].bytes = -1), 'files[1].bytes'],
      [
        'an archive hash that is not sha256',
        (r) => (r.archive = { path: 'a.tar.gz', bytes: 1, sha256: 'abc' }),
        'archive.sha256',
      ],
      [
        'a changelog without its previous version',
        (r) => delete r.changelog.previous,
        'changelog is missing required property "previous"',
      ],
      [
        'an unknown verification change',
        (r) => (r.changelog.changed[0].verification = [{ what: 'labels', from: 'a', to: 'b' }]),
        'changelog.changed[0].verification[0].what',
      ],
      [
        'a deprecation without its reason',
        (r) => delete r.changelog.removed[0].deprecated.reason,
        'changelog.removed[0].deprecated is missing required property "reason"',
      ],
      ['an extra property', (r) => (r.plan = {}), 'unknown property "plan"'],
    ],
    'release-verify-report': [
      ['a numeric version', (r) => (r.version = 1), 'version'],
      ['an unknown problem code', (r) => r.problems.push({ code: 'odd', path: 'x', message: 'x' }), 'problems[0].code'],
      ['a fractional byte count', (r) => (r.bytesChecked = 1.5), 'bytesChecked'],
      ['an unknown runtime', (r) => (r.rerun.runtime = 'podman'), 'rerun.runtime'],
      [
        'a difference without what was observed',
        (r) => delete r.rerun.differences[0].observed,
        'rerun.differences[0] is missing required property "observed"',
      ],
      ['a re-run without its verification report', (r) => delete r.verification, 'verification'],
      [
        'a verification report of the wrong shape',
        (r) => (r.verification.instances[0].status = 'great'),
        'verification.instances[0].status',
      ],
      [
        'the re-run report repeated inside rerun',
        (r) => (r.rerun.report = r.verification),
        'unknown property "report"',
      ],
      ['the parsed manifest', (r) => (r.manifest = {}), 'unknown property "manifest"'],
      ['ok that is a string', (r) => (r.ok = 'true'), 'ok'],
    ],
  };
  it.each(cases[schema]!)('%s fails (%s)', async (_what, breakIt, named) => {
    const report = structuredClone(real()) as Report;
    expect(checkSchema(schema, report)).toEqual([]);
    breakIt(report);
    const file = path.join(f.root, 'broken', 'report.json');
    let error: unknown;
    try {
      await write(file, report);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code: 'E_INTERNAL', exitCode: 70, location: { file } });
    expect((error as JunoError).message).toContain(`not a valid ${schema}: `);
    expect((error as JunoError).message).toContain(named);
    expect(await readdir(path.dirname(file)).catch(() => [])).toEqual([]);
  });
});
