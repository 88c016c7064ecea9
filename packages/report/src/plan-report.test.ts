import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { planReport } from './plan-report.js';
import { readReportData } from './read-report-data.js';
import type { ReportData, ReportInstance } from './report-data.js';
import { writeReportFixture } from '../test-helpers/report-fixture.js';

// Fixture folders and whole reports on a shared, busy machine: generous limits, never timings.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let tmp: string;
let data: ReportData;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-report-plan-'));
  const fx = await writeReportFixture(tmp);
  data = await readReportData({ from: fx.curated, raw: fx.raw, out: path.join(fx.curated, 'report') });
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** The same report with `n` more instances: copies of pandas_1 under other ids. */
function grow(n: number): ReportData {
  const pandas = data.instances.find((i) => i.id === 'pandas_1')!;
  const extra: ReportInstance[] = Array.from({ length: n }, (_, k) => ({ ...pandas, id: `pandas_${1000 + k}` }));
  return { ...data, instances: [...data.instances, ...extra] };
}

describe('planReport', () => {
  it('plans the index, the statistics page and one page per instance', () => {
    const plan = planReport(data);
    expect(plan.files.map((f) => f.path)).toEqual([
      'index.html',
      'stats.html',
      'instances/NBspecific_1.html',
      'instances/pandas_1.html',
      'instances/tensorflow_1.html',
      'instances/torch_1.html',
    ]);
    expect(plan.bytes).toBe(plan.files.reduce((s, f) => s + bytes(f.content), 0));
    expect(plan.largestInstancePage?.path).toBe('instances/pandas_1.html');
  });

  it('is deterministic: the same data gives the same bytes', () => {
    expect(planReport(data)).toEqual(planReport(structuredClone(data)));
  });

  it("keeps an instance's page the same, byte for byte, however many other instances there are", () => {
    const small = planReport(data);
    const large = planReport(grow(200));
    for (const id of ['NBspecific_1', 'pandas_1', 'tensorflow_1', 'torch_1']) {
      const page = (p: typeof small) => p.files.find((f) => f.path === `instances/${id}.html`)!.content;
      expect(page(large), id).toBe(page(small));
    }
    // Only the index grows, by about one table row per instance.
    const index = (p: typeof small) => bytes(p.files.find((f) => f.path === 'index.html')!.content);
    const perRow = (index(large) - index(small)) / 200;
    expect(perRow).toBeGreaterThan(300);
    expect(perRow).toBeLessThan(1500);
    // The statistics page holds counts, not rows: only its numbers change.
    const stats = (p: typeof small) => bytes(p.files.find((f) => f.path === 'stats.html')!.content);
    expect(Math.abs(stats(large) - stats(small))).toBeLessThan(20);
  });
});
