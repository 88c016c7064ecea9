// `junobench tasks export`, `baseline` and `score` end to end on the embedded
// benchmark: the done-when chain (the oracle scores perfectly), the
// heuristic baseline, byte-identical exports, and bad prediction lines.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, type Scorecard } from '@junobench/core';
import { waitForKernel } from './process-tree.js';
import { junobenchBin, repoRoot, runJunobench } from './run-cli.js';

let dir: string;
const tasks = () => path.join(dir, 't.jsonl');
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-score-e2e-'));
  const r = await runJunobench(['tasks', 'export', '--task', 'all', '-o', tasks()]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/: 32 detect, 16 diagnose, 16 repair tasks from 16 instances/);
}, 300_000);

describe('junobench tasks export / baseline oracle / score', () => {
  it('the oracle scores a perfect scorecard; repairs whose environment is missing are excluded with the reason', async () => {
    const p = path.join(dir, 'p.jsonl');
    const oracle = await runJunobench(['baseline', 'oracle', '--tasks', tasks(), '-o', p]);
    expect(oracle.code, oracle.stderr).toBe(0);
    expect(oracle.stdout).toContain('32 detect, 16 diagnose, 16 repair predictions for 64 tasks');
    const out = path.join(dir, 'card');
    // The local runtime explicitly: without --runtime, score picks docker when an image is recorded in this checkout,
    // which would make the test depend on what else ran here.
    const r = await runJunobench(['score', p, '--tasks', tasks(), '--out', out, '--jobs', '2', '--runtime', 'local']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^detect {4}32 tasks: crash 100\.0% \(32\/32\) · cell 100\.0% \(32\/32\) · exception 100\.0% \(16\/16\)$/m,
    );
    expect(r.stdout).toMatch(
      /^diagnose {2}16 tasks: library 100\.0% \(F1 1\.00\) · crash type 100\.0% \(F1 1\.00\) · root cause 100\.0% \(F1 1\.00\) · pipeline stage 100\.0% \(F1 1\.00\)$/m,
    );
    expect(r.stdout).toMatch(/^repair {4}(\d+) scorable tasks: resolved 100\.0% \((\d+)\/\1\) · pass@1 100\.0%$/m);
    const card = JSON.parse(await readFile(path.join(out, 'scorecard.json'), 'utf8')) as Scorecard;
    expect(checkSchema('scorecard', card)).toEqual([]);
    expect(card.repair!.resolved.correct).toBe(card.repair!.scorable);
    expect(card.repair!.scorable + card.repair!.excluded.length).toBe(16);
    for (const e of card.repair!.excluded) {
      expect(e.reason).toMatch(/not importable/);
      expect(r.stdout).toContain(`excluded ${e.instance} (${e.task}): ${e.reason}`);
    }
    // TensorFlow is not in Debian's stack; the local runtime says that repairs ran in its sandbox.
    expect(card.runtime!.kind).toBe('local');
    expect(card.repair!.excluded.map((e) => e.instance)).toContain('tensorflow_1');
    expect(r.stderr).toMatch(/run in the local runtime's bubblewrap sandbox/);
    // Repairs of one run share the sandbox's folder and home: the note says so, and what isolates them.
    expect(r.stderr).toMatch(
      /share its folder and home, so one could change what a later one sees: .*--runtime docker/,
    );
    expect(card.runtime!.sandboxed).toBe(true);
    expect((await readdir(out)).sort()).toEqual([
      'detect.svg',
      'diagnose-crashType.svg',
      'diagnose-library.svg',
      'diagnose-pipelineStage.svg',
      'diagnose-rootCause.svg',
      'repair.svg',
      'scorecard.json',
      'scorecard.md',
    ]);
  }, 1_200_000);

  it('exports byte-identical tasks for the same instances and seed, other ids for another seed', async () => {
    const again = path.join(dir, 't2.jsonl');
    expect((await runJunobench(['tasks', 'export', '-o', again])).code).toBe(0);
    expect(await readFile(again, 'utf8')).toBe(await readFile(tasks(), 'utf8'));
    const seeded = path.join(dir, 't3.jsonl');
    expect((await runJunobench(['tasks', 'export', '--task', 'detect', '--seed', 'other', '-o', seeded])).code).toBe(0);
    const ids = (f: string) =>
      readFile(f, 'utf8').then((t) =>
        t
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { id: string }).id),
      );
    const original = new Set(await ids(tasks()));
    expect((await ids(seeded)).filter((id) => original.has(id))).toEqual([]);
  }, 300_000);

  it('the heuristic baseline scores 50% on detect (balanced by construction)', async () => {
    const p = path.join(dir, 'h.jsonl');
    expect((await runJunobench(['baseline', 'heuristic', '--tasks', tasks(), '-o', p])).code).toBe(0);
    // Without --tasks the task set is every task of the kinds the predictions use: no repair runs here.
    const r = await runJunobench(['score', p, '--json', path.join(dir, 'h.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('detect    32 tasks: crash 50.0% (16/32)');
    expect(r.stdout).not.toMatch(/^repair/m);
    const card = JSON.parse(await readFile(path.join(dir, 'h.json'), 'utf8')) as Scorecard;
    expect(card.diagnose!.dimensions.library.single.accuracy.value).toBeGreaterThan(0.5);
  }, 300_000);

  it('refuses, before any work, an output that is an input or a folder (the predictions, the tasks file)', async () => {
    const first = (await readFile(tasks(), 'utf8')).split('\n')[0]!;
    const id = (JSON.parse(first) as { id: string }).id;
    const p = path.join(dir, 'one.jsonl');
    const line = `${JSON.stringify({ task: 'detect', id, answer: { crashes: true } })}\n`;
    await writeFile(p, line);
    const overPredictions = await runJunobench(['score', p, '--tasks', tasks(), '--json', p]);
    expect(overPredictions.code, overPredictions.stderr).toBe(2);
    expect(overPredictions.stderr).toContain(
      `--json ${p} is also an input of this command (${p}): it would be replaced`,
    );
    expect(await readFile(p, 'utf8')).toBe(line);
    const overTasks = await runJunobench(['baseline', 'oracle', '--tasks', tasks(), '-o', tasks()]);
    expect(overTasks.code, overTasks.stderr).toBe(2);
    expect(overTasks.stderr).toContain('is also an input of this command');
    await mkdir(path.join(dir, 'card.json'));
    const folder = await runJunobench(['score', p, '--tasks', tasks(), '--json', path.join(dir, 'card.json')]);
    expect(folder.code, folder.stderr).toBe(2);
    expect(folder.stderr).toContain(`--json ${path.join(dir, 'card.json')} is a folder; give a file path`);
  }, 300_000);

  it('refuses, before any work, an --out that is a file or whose scorecard.json is the predictions', async () => {
    const first = (await readFile(tasks(), 'utf8')).split('\n')[0]!;
    const id = (JSON.parse(first) as { id: string }).id;
    const oneTask = path.join(dir, 'one-task.jsonl');
    await writeFile(oneTask, `${first}\n`);
    const line = `${JSON.stringify({ task: 'detect', id, answer: { crashes: true } })}\n`;
    const p = path.join(dir, 'out-p.jsonl');
    await writeFile(p, line);
    // Before: every repair ran, the summary was printed, then writing <file>/detect.svg failed.
    const outFile = await runJunobench(['score', p, '--tasks', oneTask, '--out', p]);
    expect(outFile.code, outFile.stderr).toBe(2);
    expect(outFile.stderr).toContain(
      `--out ${p} is a file; give a folder (score writes scorecard.md, scorecard.json and the charts into it)`,
    );
    expect(outFile.stdout).toBe('');
    // Before: the scorecard replaced the predictions it scored.
    const folder = path.join(dir, 'run-1');
    await mkdir(folder);
    const inside = path.join(folder, 'scorecard.json');
    await writeFile(inside, line);
    const overInput = await runJunobench(['score', inside, '--tasks', oneTask, '--out', folder]);
    expect(overInput.code, overInput.stderr).toBe(2);
    expect(overInput.stderr).toContain(
      `--out ${inside} is also an input of this command (${inside}): it would be replaced`,
    );
    expect(await readFile(inside, 'utf8')).toBe(line);
    const fine = await runJunobench(['score', p, '--tasks', oneTask, '--out', folder]);
    expect(fine.code, fine.stderr).toBe(0);
    expect(JSON.parse(await readFile(inside, 'utf8'))).toMatchObject({ tasks: { detect: 1 } });
  }, 300_000);

  it('score --help states every rule of "resolved", the hidden-crash and checks ones included', async () => {
    const r = await runJunobench(['score', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      'the crash cell included, no exception handler or constant-false guard added, at run time no exception of the labelled class swallowed and no library function replaced, and every check of the instance passed',
    );
  }, 120_000);

  it('exits 2 naming malformed lines and unknown tasks; --lenient scores the rest', async () => {
    const first = (await readFile(tasks(), 'utf8')).split('\n')[0]!;
    const id = (JSON.parse(first) as { id: string }).id;
    const p = path.join(dir, 'bad.jsonl');
    await writeFile(
      p,
      [
        JSON.stringify({ task: 'detect', id, answer: { crashes: true } }),
        '{"task": "detect",',
        JSON.stringify({ task: 'detect', id: 'detect-0123456789abcdef', answer: { crashes: true } }),
      ].join('\n'),
    );
    const strict = await runJunobench(['score', p]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(
      /bad\.jsonl, line 2: 2 prediction lines cannot be scored:\n {2}line 2: invalid JSON[\s\S]*line 3: unknown task "detect-0123456789abcdef"/,
    );
    expect(strict.stderr).toMatch(/--lenient/);
    const lenient = await runJunobench(['score', p, '--lenient']);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stderr).toMatch(
      /line 3: unknown task "detect-0123456789abcdef": none of the tasks being scored has this id \(left out\)/,
    );
    expect(lenient.stdout).toMatch(/detect {4}32 tasks: crash \d+\.\d% \([01]\/32\)/);
    expect(lenient.stdout).toContain('predictions: 3 lines, 1 scored, 2 left out');
  }, 300_000);

  it('--lenient: a left-out repair line is a missing answer of its attempt, and the scorecard says which line', async () => {
    const lines = (await readFile(tasks(), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; task: string });
    const ids = lines.filter((t) => t.task === 'repair').map((t) => t.id);
    const p = path.join(dir, 'lenient-repair.jsonl');
    // Attempt 1 fails the static check (nothing runs); attempt 2's only line is refused. It was scored as 1 attempt.
    await writeFile(
      p,
      [
        JSON.stringify({ task: 'repair', id: ids[0], attempt: 1, answer: { cells: ['pass'] } }),
        JSON.stringify({ task: 'repair', id: ids[0], attempt: 2, answer: { cells: [1] } }),
      ].join('\n'),
    );
    const json = path.join(dir, 'lenient-repair.json');
    const r = await runJunobench(['score', p, '--tasks', tasks(), '--lenient', '--runtime', 'local', '--json', json]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^repair {4}\d+ scorable tasks: resolved 0\.0% \(0\/\d+\) · pass@1 0\.0% · pass@2 0\.0%$/m,
    );
    const card = JSON.parse(await readFile(json, 'utf8')) as Scorecard;
    expect(card.repair!.attempts).toBe(2);
    const second = card.repair!.results.find((x) => x.task === ids[0] && x.attempt === 2);
    expect(second).toMatchObject({
      outcome: 'no-prediction',
      reason: expect.stringMatching(
        /^the answer on line 2 was left out \(--lenient\): not a valid prediction: answer\.cells\[0\]/,
      ),
    });
    // Said before the long work (the runtime's module check, then the repairs), not after it; and the wait is named.
    const leftOut = r.stderr.indexOf('line 2: not a valid prediction: answer.cells[0]');
    const checking = r.stderr.search(
      /^checking which modules the repair tasks need the local runtime can import \((\w+, )*pandas(, \w+)*\)…$/m,
    );
    expect(leftOut, r.stderr).toBeGreaterThanOrEqual(0);
    expect(checking, r.stderr).toBeGreaterThan(leftOut);
  }, 300_000);
});

describe('junobench score interrupted', () => {
  it('Ctrl-C while a repair runs leaves no scratch copy behind', async () => {
    // The repairs' scratch copies (a copy of the instance's data per attempt) were removed only when scoring ended
    // normally: Ctrl-C exits through process.exit, and junobench-score-*/ stayed in $TMPDIR.
    const all = (await readFile(tasks(), 'utf8'))
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            task: string;
            notebook?: { cells: { cell_type: string; source: string | string[] }[] };
          },
      );
    const task = all.find((t) => t.task === 'repair')!;
    const notebook = structuredClone(task.notebook!);
    const first = notebook.cells.find((c) => c.cell_type === 'code')!;
    first.source = `import time\ntime.sleep(100)\n${Array.isArray(first.source) ? first.source.join('') : first.source}`;
    const p = path.join(dir, 'slow-repair.jsonl');
    await writeFile(p, `${JSON.stringify({ task: 'repair', id: task.id, answer: { notebook } })}\n`);
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-score-sigint-'));
    const child = spawn(process.execPath, [junobenchBin, 'score', p, '--tasks', tasks(), '--runtime', 'local'], {
      cwd: repoRoot,
      env: { ...process.env, CI: '1', TMPDIR: tmp },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const ours = async () => (await readdir(tmp)).filter((n) => n.startsWith('junobench'));
    // Wait until the repair runs: a kernel under the CLI's process (in the sandbox: found by descent).
    expect(await waitForKernel(child.pid!, 240_000), stderr).toBe(true);
    expect((await ours()).length, stderr).toBeGreaterThanOrEqual(2);
    child.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<string>((r) => setTimeout(() => r('still running 60 s after the signal'), 60_000)),
    ]);
    if (typeof code === 'string') child.kill('SIGKILL');
    expect(code, stderr).toBe(130);
    expect(await ours()).toEqual([]);
  }, 400_000);
});
