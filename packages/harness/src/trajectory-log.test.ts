import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LOGGED_TEXT, SERVER_LOG, TrajectoryLog, summarizeText } from './trajectory-log.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('TrajectoryLog', () => {
  it('logs each call on its own line of its session file, numbered in call order, keys sorted', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'jb-trajectory-'));
    const log = new TrajectoryLog(path.join(dir, 'traj'));
    const a = 'repair-0123456789abcdef-1';
    await Promise.all([
      log.append(a, { tool: 'run_cell', arguments: { session_id: a, code: 'x = 1' }, ok: true, summary: 'ok', ms: 5 }),
      log.append(undefined, { tool: 'list_tasks', arguments: {}, ok: true, summary: '3 tasks', ms: 1 }),
      log.append(a, { tool: 'inspect', arguments: { session_id: a, name: '../x' }, ok: false, summary: 'bad', ms: 0 }),
    ]);
    const file = path.join(dir, 'traj', `${a}.jsonl`);
    expect(await lines(file)).toEqual([
      { seq: 1, tool: 'run_cell', arguments: { session_id: a, code: 'x = 1' }, ok: true, summary: 'ok', ms: 5 },
      { seq: 2, tool: 'inspect', arguments: { session_id: a, name: '../x' }, ok: false, summary: 'bad', ms: 0 },
    ]);
    expect((await readFile(file, 'utf8')).split('\n')[0]).toMatch(/^\{"arguments":\{"code":"x = 1","session_id"/);
    expect(await lines(path.join(dir, 'traj', SERVER_LOG))).toEqual([
      { seq: 1, tool: 'list_tasks', arguments: {}, ok: true, summary: '3 tasks', ms: 1 },
    ]);
  });

  it('cuts long arguments, saying how long they were', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'jb-trajectory-'));
    const log = new TrajectoryLog(dir);
    await log.append(undefined, {
      tool: 'run_cell',
      arguments: { code: 'y'.repeat(MAX_LOGGED_TEXT + 10) },
      ok: false,
      summary: 'refused',
      ms: 0,
    });
    const [entry] = await lines(path.join(dir, SERVER_LOG));
    const code = (entry!.arguments as { code: string }).code;
    expect(code.endsWith(`… [${MAX_LOGGED_TEXT + 10} characters]`)).toBe(true);
    expect(code.length).toBeLessThan(MAX_LOGGED_TEXT + 40);
  });

  it('summarizes a result on one short line', () => {
    expect(summarizeText('a\n  b\tc')).toBe('a b c');
    expect(summarizeText('z'.repeat(50), 10)).toBe(`${'z'.repeat(9)}…`);
  });
});
