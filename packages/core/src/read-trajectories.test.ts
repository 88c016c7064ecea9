import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JunoError } from './errors.js';
import { readTrajectories } from './read-trajectories.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});
const tmp = async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'jb-read-traj-')));
const line = (o: Record<string, unknown>) =>
  JSON.stringify({ seq: 1, tool: 'run_cell', arguments: {}, ok: true, summary: 'ok', ms: 3, ...o });

async function refusal(d: string): Promise<JunoError> {
  const e = await readTrajectories(d).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(JunoError);
  return e as JunoError;
}

describe('readTrajectories', () => {
  it('reads one session per file, sorted, leaving out the server log and other files', async () => {
    const d = await tmp();
    await writeFile(path.join(d, 'repair-b-1.jsonl'), `${line({})}\n\n${line({ seq: 2, tool: 'submit' })}\n`);
    await writeFile(
      path.join(d, 'repair-a-1.jsonl'),
      `${line({ task_id: 'repair-a', at: '2026-01-01T00:00:00.000Z' })}\n`,
    );
    await writeFile(path.join(d, 'serve.jsonl'), `${line({ tool: 'list_tasks' })}\n`);
    await writeFile(path.join(d, 'notes.txt'), 'not a trajectory');
    const sessions = await readTrajectories(d);
    expect(sessions.map((s) => [s.session, s.entries.map((e) => e.tool)])).toEqual([
      ['repair-a-1', ['run_cell']],
      ['repair-b-1', ['run_cell', 'submit']],
    ]);
    expect(sessions[0]!.entries[0]!.task_id).toBe('repair-a');
  });

  it.each([
    ['not JSON', '{"seq": 1, "tool": ', /invalid JSON/],
    ['not an entry', JSON.stringify({ seq: 1, tool: 'x' }), /not a valid trajectory-entry/],
    ['a negative time', line({ ms: -5 }), /not a valid trajectory-entry.*ms/],
    ['a field of its own', line({ script: '<script>' }), /not a valid trajectory-entry/],
    [
      'arguments nested too deep',
      line({ arguments: JSON.parse('{"a":'.repeat(150) + '1' + '}'.repeat(150)) }),
      /nest more than/,
    ],
  ])('refuses a line that is %s, naming the file and line', async (_what, bad, message) => {
    const d = await tmp();
    const file = path.join(d, 'repair-a-1.jsonl');
    await writeFile(file, `${line({})}\n${bad}\n`);
    const e = await refusal(d);
    expect(e.message).toMatch(message);
    expect(e.location).toMatchObject({ file, line: 2 });
    expect(e.exitCode).toBe(2);
  });

  it('refuses a missing folder, a session file that is a link, and a file not named as a session', async () => {
    const d = await tmp();
    expect((await refusal(path.join(d, 'absent'))).code).toBe('E_INPUT_NOT_FOUND');
    await symlink('/etc/passwd', path.join(d, 'repair-a-1.jsonl'));
    expect((await refusal(d)).message).toMatch(/not a regular file/);
    await rm(path.join(d, 'repair-a-1.jsonl'));
    await mkdir(path.join(d, 'sub'));
    await writeFile(path.join(d, 'sub', 'x.jsonl'), '');
    await writeFile(path.join(d, 'bad name\u001b[31m.jsonl'), `${line({})}\n`);
    expect((await refusal(d)).message).toMatch(/not named as a session/);
  });
});
