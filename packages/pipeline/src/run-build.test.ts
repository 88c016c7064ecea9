import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStages, type Stage } from './run-build.js';

async function project() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'jb-build-'));
  await mkdir(path.join(root, 'raw'));
  await writeFile(path.join(root, 'raw', 'in.txt'), 'a');
  return root;
}

function stages(runs: string[]): Stage[] {
  return [
    {
      name: 'upper',
      description: 'upper-case the input',
      inputs: ['raw/in.txt'],
      outputs: ['out/upper.txt'],
      async run(io) {
        runs.push('upper');
        const text = await readFile(io.abs('raw/in.txt'), 'utf8');
        await mkdir(io.abs('out'), { recursive: true });
        await writeFile(io.abs('out/upper.txt'), text.toUpperCase());
        return { summary: `${text.length} chars` };
      },
    },
    {
      name: 'double',
      description: 'double it',
      inputs: ['out/upper.txt'],
      outputs: ['out/double.txt'],
      async run(io) {
        runs.push('double');
        const text = await readFile(io.abs('out/upper.txt'), 'utf8');
        await writeFile(io.abs('out/double.txt'), text + text);
        return { summary: 'doubled' };
      },
    },
  ];
}

describe('runStages', () => {
  it('runs every stage once, then nothing until something changes, then only what depends on it', async () => {
    const root = await project();
    const runs: string[] = [];
    const opts = { root, lockFile: 'out/.lock.json', codeFingerprint: 'c1' };
    const first = await runStages(stages(runs), opts);
    expect(first.stages.map((s) => s.action)).toEqual(['run', 'run']);
    expect(await readFile(path.join(root, 'out/double.txt'), 'utf8')).toBe('AA');

    const second = await runStages(stages(runs), opts);
    expect(second.stages.map((s) => [s.action, s.summary])).toEqual([
      ['skip', '1 chars'],
      ['skip', 'doubled'],
    ]);
    expect(runs).toEqual(['upper', 'double']);

    // The same upstream output: the downstream stage stays up to date.
    await writeFile(path.join(root, 'raw', 'in.txt'), 'A');
    const third = await runStages(stages(runs), opts);
    expect(third.stages.map((s) => s.action)).toEqual(['run', 'skip']);

    await writeFile(path.join(root, 'raw', 'in.txt'), 'b');
    expect((await runStages(stages(runs), opts)).stages.map((s) => s.action)).toEqual(['run', 'run']);

    await rm(path.join(root, 'out/double.txt'));
    expect((await runStages(stages(runs), opts)).stages.map((s) => [s.action, s.reason])).toEqual([
      ['skip', 'up to date'],
      ['run', 'outputs missing'],
    ]);

    expect((await runStages(stages(runs), { ...opts, codeFingerprint: 'c2' })).stages.map((s) => s.action)).toEqual(['run', 'run']);
  });

  it('does not record a stage that found failures, so the next build looks again', async () => {
    const root = await project();
    const failing: Stage = { name: 'check', description: 'x', inputs: ['raw/in.txt'], outputs: ['raw/in.txt'], run: async () => ({ summary: 'bad', failed: true }) };
    const r1 = await runStages([failing], { root, lockFile: 'lock.json', codeFingerprint: 'c' });
    expect(r1.failed).toBe(true);
    const r2 = await runStages([failing], { root, lockFile: 'lock.json', codeFingerprint: 'c' });
    expect(r2.stages[0]!.action).toBe('run');
  });

  it('rejects an unknown --only stage with the list of stages', async () => {
    const root = await project();
    await expect(runStages(stages([]), { root, lockFile: 'l.json', codeFingerprint: 'c', only: ['nope'] })).rejects.toThrow(/unknown build stage "nope"/);
  });
});
