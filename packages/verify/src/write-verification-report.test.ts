import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JunoError, checkSchema, type RuntimeIdentity, type VersionResult } from '@junobench/core';
import { skippedEnv } from './classify-outcome.js';
import { summarize } from './verify-instances.js';
import { planVerificationReport, writeVerificationReport } from './write-verification-report.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'verify-report-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const runtime: RuntimeIdentity = { kind: 'local', python: '/usr/bin/python3', packages: { pandas: '2.2.3' } };
const observed = { ename: 'KeyError', evalue: "'price'", cell: 1, line: 2 };
const run = (
  version: 'reproduced' | 'fixed',
  outcome: VersionResult['outcome'],
  extra: Partial<VersionResult> = {},
): VersionResult => ({
  version,
  outcome,
  cells: [{ index: 0, status: 'ok', durationMs: 3 }],
  durationMs: 40,
  runtime,
  ...extra,
});
const hash = (c: string) => c.repeat(64);

// One instance of each status, made by the functions verifyInstances uses (summarize, skippedEnv).
const INSTANCES = [
  summarize(
    { id: 'pandas_1', contentHash: hash('a') },
    [run('reproduced', 'crash-reproduced', { observed })],
    [run('fixed', 'fixed-ok')],
  ),
  summarize({ id: 'pandas_2', contentHash: hash('b') }, [run('reproduced', 'no-crash')], [run('fixed', 'fixed-ok')]),
  summarize(
    { id: 'torch_1', contentHash: hash('c') },
    [skippedEnv('reproduced', ['torch'], runtime)],
    [skippedEnv('fixed', ['torch'], runtime)],
  ),
  summarize(
    { id: 'numpy_1', contentHash: hash('d') },
    [
      run('reproduced', 'crash-reproduced', { observed }),
      run('reproduced', 'timeout', { reason: 'cell 1 ran over 120 s' }),
    ],
    [run('fixed', 'fixed-ok'), run('fixed', 'fixed-ok')],
  ),
  summarize(
    { id: 'draft_1', contentHash: hash('e') },
    [run('reproduced', 'crash-reproduced', { observed })],
    [run('fixed', 'absent', { cells: [], durationMs: 0 })],
  ),
];

describe('planVerificationReport', () => {
  it('counts every status, drafts only when there are some', () => {
    expect(INSTANCES.map((v) => v.status)).toEqual(['verified', 'not-verified', 'skipped', 'flaky', 'draft']);
    expect(planVerificationReport('local', INSTANCES).summary).toEqual({
      total: 5,
      verified: 1,
      notVerified: 1,
      skipped: 1,
      flaky: 1,
      drafts: 1,
    });
    expect(planVerificationReport('docker', INSTANCES.slice(0, 2)).summary).toEqual({
      total: 2,
      verified: 1,
      notVerified: 1,
      skipped: 0,
      flaky: 0,
    });
    expect(planVerificationReport('local', []).summary).toEqual({
      total: 0,
      verified: 0,
      notVerified: 0,
      skipped: 0,
      flaky: 0,
    });
  });
});

describe('writeVerificationReport (verify --json)', () => {
  it('writes a report of every status, valid against verification, and reads back equal', async () => {
    const file = path.join(dir, 'v.json');
    const report = planVerificationReport('local', INSTANCES);
    await writeVerificationReport(file, report);
    const json = JSON.parse(await readFile(file, 'utf8'));
    expect(checkSchema('verification', json)).toEqual([]);
    expect(json).toEqual(report);
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- reports are broken on purpose, field by field
  type Report = any;
  // Broken copies of the real report: each is an internal error naming the field, and no file is written.
  it.each([
    ['an unknown runtime', (r: Report) => (r.runtime = 'podman'), 'runtime'],
    ['an unknown status', (r: Report) => (r.instances[0].status = 'great'), 'instances[0].status'],
    [
      'an unknown outcome',
      (r: Report) => (r.instances[1].reproduced.outcome = 'crashed'),
      'instances[1].reproduced.outcome',
    ],
    ['a summary without flaky', (r: Report) => delete r.summary.flaky, 'summary is missing required property "flaky"'],
    ['a fractional total', (r: Report) => (r.summary.total = 4.5), 'summary.total'],
    ['a content hash that is a number', (r: Report) => (r.instances[2].contentHash = 7), 'instances[2].contentHash'],
    ['a verified flag that is a string', (r: Report) => (r.instances[0].verified = 'yes'), 'instances[0].verified'],
    ['an extra property', (r: Report) => (r.instances[3].note = 'x'), 'unknown property "note"'],
  ])('%s fails (%s)', async (_what, breakIt, named) => {
    const file = path.join(dir, 'v.json');
    const report = structuredClone(planVerificationReport('local', INSTANCES));
    expect(checkSchema('verification', report)).toEqual([]);
    breakIt(report);
    let error: unknown;
    try {
      await writeVerificationReport(file, report);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code: 'E_INTERNAL', exitCode: 70, location: { file } });
    expect((error as JunoError).message).toContain('not a valid verification: ');
    expect((error as JunoError).message).toContain(named);
    expect(await readdir(dir)).toEqual([]);
  });
});
