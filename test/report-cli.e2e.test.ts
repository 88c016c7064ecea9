// `junobench report` and the `report` stage of `build`, end to end with the
// real binary: on the report's test fixture, and on the embedded raw/ (real
// notebooks, annotations, labels and stats stages; only verification.json is
// written by the test, so that no kernel is needed) to measure the size of
// the embedded report.
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJson, listInstanceIds, readInstance, listTree } from '@junobench/core';
import { writeReportFixture, type ReportFixture } from '../packages/report/test-helpers/report-fixture.js';
import { repoRoot, runJunobench } from './run-cli.js';

let tmp: string;
let fx: ReportFixture;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'jb-report-e2e-'));
  fx = await writeReportFixture(path.join(tmp, 'fixture'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function sizes(dir: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const rel of await listTree(dir)) out[rel] = (await stat(path.join(dir, rel))).size;
  return out;
}

describe('junobench report', () => {
  it('writes the report from curated/ (and raw/ found beside it) and says how to open it', async () => {
    const r = await runJunobench(['report'], { cwd: fx.root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^wrote curated\/report\/: 6 pages for 4 instances, \d+ KB; largest instance page \d+ KB \(instances\/pandas_1\.html\)$/m,
    );
    expect(r.stdout).toContain(`open ${pathToFileURL(path.join(fx.curated, 'report', 'index.html')).href}`);
    expect((await readdir(path.join(fx.curated, 'report', 'instances'))).sort()).toEqual([
      'NBspecific_1.html',
      'pandas_1.html',
      'tensorflow_1.html',
      'torch_1.html',
    ]);
    // raw/ was used: the adjudicator's note is on the page.
    expect(await readFile(path.join(fx.curated, 'report', 'instances', 'pandas_1.html'), 'utf8')).toContain(
      'the crash type is the exception class',
    );
  });

  it('--out elsewhere and --no-raw', async () => {
    const out = path.join(tmp, 'elsewhere');
    const r = await runJunobench(['report', '--from', fx.curated, '--out', out, '--no-raw'], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    const page = await readFile(path.join(out, 'instances', 'pandas_1.html'), 'utf8');
    expect(page).not.toContain('the crash type is the exception class');
    // Links to the curated files are relative to where the report is.
    expect(page).toContain(
      `href="${path.relative(path.join(out, 'instances'), path.join(fx.curated, 'instances', 'pandas_1', 'reproduced.ipynb'))}"`,
    );
  });

  it('exits 2 naming the problem: no curated benchmark, a --out that is not a report, a missing --raw', async () => {
    const none = await runJunobench(['report', '--from', path.join(tmp, 'nothing')], { cwd: tmp });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /no benchmark\.json in .*nothing[\s\S]*hint: build the curated benchmark first: npx junobench build/,
    );
    const clobber = await runJunobench(['report', '--out', 'curated'], { cwd: fx.root });
    expect(clobber.code).toBe(2);
    expect(clobber.stderr).toMatch(/refusing to replace .*curated: it is not empty and not a report/);
    expect(await stat(path.join(fx.curated, 'benchmark.json'))).toBeTruthy();
    const raw = await runJunobench(['report', '--raw', 'nope'], { cwd: fx.root });
    expect(raw.code).toBe(2);
    expect(raw.stderr).toMatch(/no such folder: .*nope[\s\S]*hint: pass --raw/);
  });

  it('exits 1 when a page shows a problem (an unreadable notebook), and still writes the report', async () => {
    const copy = path.join(tmp, 'broken');
    await cp(fx.root, copy, { recursive: true });
    await writeFile(path.join(copy, 'curated', 'instances', 'pandas_1', 'fixed.ipynb'), '{');
    const r = await runJunobench(['report'], { cwd: copy });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/warning: pandas_1: fixed\.ipynb: not a notebook: invalid JSON/);
    expect(await readFile(path.join(copy, 'curated', 'report', 'instances', 'pandas_1.html'), 'utf8')).toContain(
      'fixed.ipynb: not a notebook',
    );
  });
});

describe('the report stage of build, on the embedded raw/', () => {
  let project: string;
  beforeAll(async () => {
    project = path.join(tmp, 'embedded');
    await cp(path.join(repoRoot, 'raw'), path.join(project, 'raw'), { recursive: true });
    // What verify would write, without kernels: every instance verified as labelled.
    const instancesDir = path.join(project, 'raw', 'instances');
    const instances = [];
    for (const id of await listInstanceIds(instancesDir))
      instances.push(await readInstance(path.join(instancesDir, id)));
    const runtime = { kind: 'local', pythonVersion: '3.11.2', packages: {} };
    const result = (version: string, outcome: string, observed?: object) => ({
      version,
      outcome,
      cells: [],
      durationMs: 1000,
      runtime,
      ...(observed ? { observed } : {}),
    });
    await writeFile(
      path.join(project, 'verification.fixture.json'),
      formatJson({
        runtime: 'local',
        summary: { total: instances.length, verified: instances.length, notVerified: 0, skipped: 0, flaky: 0 },
        instances: instances.map((i) => ({
          instance: i.id,
          status: 'verified',
          verified: true,
          flaky: false,
          reproduced: result('reproduced', 'crash-reproduced', {
            ename: i.crash.ename,
            evalue: i.crash.evalue,
            cell: i.crash.cell,
          }),
          fixed: result('fixed', 'fixed-ok'),
          contentHash: i.id,
          cached: false,
        })),
      }),
    );
    await cp(path.join(project, 'verification.fixture.json'), path.join(project, 'curated', 'verification.json'));
  }, 120_000);

  it('builds curated/report/index.html; the embedded report stays under 2 MB with every instance page small', async () => {
    const r = await runJunobench(['build', '--only', 'labels,benchmark,stats,report'], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^report\s+done in .*: \d+ pages, \d+ KB \(largest instance page \d+ KB\) → curated\/report\/index\.html$/m,
    );
    const s = await sizes(path.join(project, 'curated', 'report'));
    const ids = await listInstanceIds(path.join(project, 'raw', 'instances'));
    // The pages, and the manifest that lists them (what the next report may delete).
    expect(Object.keys(s).sort()).toEqual(
      ['.junobench-report.json', 'index.html', ...ids.map((id) => `instances/${id}.html`), 'stats.html'].sort(),
    );
    const total = Object.values(s).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThan(2 * 1024 * 1024);
    for (const id of ids) expect(s[`instances/${id}.html`], id).toBeLessThan(150 * 1024);
    console.log(
      `embedded report: ${ids.length} instances, ${Math.round(total / 1024)} KB; largest instance page ${Math.round(Math.max(...ids.map((id) => s[`instances/${id}.html`]!)) / 1024)} KB`,
    );
  }, 300_000);

  it('skips the report stage on a second build with nothing changed, and re-runs it when curated/ changes', async () => {
    const again = await runJunobench(['build', '--only', 'report'], { cwd: project });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^report\s+up to date/m);
    await cp(path.join(project, 'verification.fixture.json'), path.join(project, 'curated', 'verification.json'));
    const v = JSON.parse(await readFile(path.join(project, 'curated', 'verification.json'), 'utf8')) as {
      instances: { fixed: { durationMs: number } }[];
    };
    v.instances[0]!.fixed.durationMs = 1234;
    await writeFile(path.join(project, 'curated', 'verification.json'), formatJson(v));
    const changed = await runJunobench(['build', '--only', 'report'], { cwd: project });
    expect(changed.stdout).toMatch(/^report\s+done in/m);
  }, 300_000);
});
