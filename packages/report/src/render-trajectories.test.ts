import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JunoError } from '@junobench/core';
import { readReportData } from './read-report-data.js';
import { renderInstancePage } from './render-instance.js';
import { MAX_CALLS_SHOWN, renderTrajectories } from './render-trajectories.js';
import { writeReportFixture } from '../test-helpers/report-fixture.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let tmp: string;
let fx: Awaited<ReturnType<typeof writeReportFixture>>;
const XSS = '<script>window.__pwned = 1</script><img src=x onerror=alert(1)>';
const line = (o: Record<string, unknown>) =>
  JSON.stringify({ seq: 1, tool: 'run_cell', arguments: {}, ok: true, summary: 'ok', ms: 12, ...o });

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-report-traj-'));
  fx = await writeReportFixture(tmp);
  const traj = path.join(tmp, 'agent.trajectories');
  await mkdir(traj);
  const on = { task_id: 'repair-0a', instance: 'pandas_1' };
  await writeFile(
    path.join(traj, 'repair-0a-1.jsonl'),
    [
      line({ ...on, tool: 'open_task', arguments: { task_id: 'repair-0a' }, summary: 'ok; session repair-0a-1' }),
      line({
        ...on,
        seq: 2,
        arguments: { session_id: 'repair-0a-1', code: `print("${XSS}")\ndf.head()` },
        summary: `error; KeyError: '${XSS}'`,
        ms: 1534,
        at: '2026-01-01T00:00:01.000Z',
      }),
      line({
        ...on,
        seq: 3,
        tool: `inspect${XSS}`,
        arguments: { name: XSS },
        ok: false,
        summary: `bad-arguments: ${XSS}`,
      }),
      line({
        ...on,
        seq: 4,
        tool: 'submit',
        arguments: { answer: { cells: ['x'] } },
        summary: 'submitted',
        attempt: 2,
      }),
    ].join('\n'),
  );
  // A session on another instance, and one of a log without instances: neither on pandas_1's page.
  await writeFile(path.join(traj, 'repair-0b-1.jsonl'), `${line({ instance: 'NBspecific_1' })}\n`);
  await writeFile(path.join(traj, 'repair-0c-1.jsonl'), `${line({})}\n`);
  await writeFile(path.join(traj, 'serve.jsonl'), `${line({ tool: 'list_tasks' })}\n`);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const read = (trajectories: string) =>
  readReportData({ from: fx.curated, raw: fx.raw, out: path.join(fx.curated, 'report'), trajectories });

describe('trajectories in the report', () => {
  it("shows each session's calls beside its instance: tool, arguments, result and time, all escaped", async () => {
    const data = await read(path.join(tmp, 'agent.trajectories'));
    const pandas = data.instances.find((i) => i.id === 'pandas_1')!;
    expect(pandas.trajectories?.map((s) => s.session)).toEqual(['repair-0a-1']);
    expect(data.instances.find((i) => i.id === 'NBspecific_1')!.trajectories?.map((s) => s.session)).toEqual([
      'repair-0b-1',
    ]);
    const html = renderInstancePage(pandas, data.name);
    expect(html).toContain('<h2 id="trajectories">Agent sessions</h2>');
    expect(html).toContain('<code>repair-0a-1</code> · task <code>repair-0a</code> · 4 calls, 1.6 s in calls');
    expect(html).toContain('submitted (attempt 2)');
    expect(html).toContain('<div>code:<pre>print(&quot;&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
    expect(html).toContain('1.5 s<br><span class="muted">2026-01-01T00:00:01.000Z</span>');
    expect(html).toContain('<code>inspect&lt;script&gt;');
    expect(html).toContain('<span class="badge badge-bad">refused</span> bad-arguments: &lt;script&gt;');
    // The session id is in the heading, not repeated in each call.
    expect(html).not.toContain('session_id');
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).not.toMatch(/<img src=x|<[^>]+\sonerror=/i);
  });

  it('keeps a page bounded: calls past the limit are counted, not shown', () => {
    const entries = Array.from({ length: MAX_CALLS_SHOWN + 5 }, (_, i) => ({
      ...{ seq: i + 1, tool: 'run_cell', arguments: { code: 'x'.repeat(10_000) } },
      ...{ ok: true, summary: 'ok', ms: 1 },
    }));
    const html = renderTrajectories([{ session: 's-1', file: '/t/s-1.jsonl', entries }]);
    expect(html.match(/<tr><td>/g)).toHaveLength(MAX_CALLS_SHOWN);
    expect(html).toContain('… and 5 more calls, not shown.');
    expect(html).toContain('… (8000 more characters)');
    expect(renderTrajectories(undefined)).toBe('');
  });

  it('refuses a trajectory line that is not one, naming the file and line', async () => {
    const bad = path.join(tmp, 'bad.trajectories');
    await mkdir(bad);
    await writeFile(path.join(bad, 'repair-0a-1.jsonl'), `${line({})}\n{"seq": "<b>"}\n`);
    const e = await read(bad).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(JunoError);
    expect((e as JunoError).location).toMatchObject({ file: path.join(bad, 'repair-0a-1.jsonl'), line: 2 });
  });
});
