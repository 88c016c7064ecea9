// Test-only: the red team's forged verdicts at the CLI, for `verify` and `score` in both runtimes
// (test/hardening-cli.e2e.test.ts: local; test/queue-docker.container.test.ts: docker). A notebook cell walks up to
// the runner, tries PTRACE_ATTACH, copies its stdout with pidfd_getfd(pidfd_open(runner), 1), writes a well-formed
// result line and kills the runner (packages/runtime/test-helpers/forgery-cells.ts). Before the runner signed its
// messages and refused ptrace and pidfd_getfd, the forged line was the verdict.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { forgeVerdictCell } from '../packages/runtime/test-helpers/forgery-cells.js';
import { writeTestInstance } from '../packages/verify/test-helpers/make-test-instance.js';

export interface ForgeryFixture {
  /** One instance, forged_1: its reproduced notebook never crashes but forges the labelled KeyError; its fixed one
   * raises 1/0 after forging "completed". Forged through, it is verified. */
  verifyInstances: string;
  /** One plain instance, keyerr_1, whose repair task the forged repair answers. */
  scoreInstances: string;
}

export async function writeForgeryFixture(root: string): Promise<ForgeryFixture> {
  const verifyInstances = path.join(root, 'forged-instances');
  await writeTestInstance(verifyInstances, {
    id: 'forged_1',
    reproduced: [forgeVerdictCell('error'), 'x = 1'],
    fixed: [forgeVerdictCell('completed'), '1/0'],
    crash: { cell: 0, ename: 'KeyError', evalue: "'made-up'", match: 'exact' },
  });
  const scoreInstances = path.join(root, 'repair-instances');
  await writeTestInstance(scoreInstances, {
    id: 'keyerr_1',
    reproduced: ['d = {"a": 1}', 'd["b"]'],
    fixed: ['d = {"a": 1}', 'd.get("b")'],
    crash: { cell: 1, ename: 'KeyError', evalue: "'b'", match: 'exact' },
  });
  return { verifyInstances, scoreInstances };
}

/**
 * The predictions file of the forged repair: the crashing notebook's cells kept as they are, one cell added in front
 * that forges "completed" (no exception handler, so it passes score's static check and runs). Forged through, it is
 * resolved.
 */
export async function writeForgedRepair(tasksFile: string, out: string): Promise<void> {
  const tasks = (await readFile(tasksFile, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; task: string; notebook: { cells: { source: string | string[] }[] } });
  const task = tasks.find((t) => t.task === 'repair')!;
  const cells = task.notebook.cells.map((c) => [c.source].flat().join(''));
  await writeFile(
    out,
    `${JSON.stringify({ task: 'repair', id: task.id, answer: { cells: [forgeVerdictCell('completed'), ...cells] } })}\n`,
  );
}
