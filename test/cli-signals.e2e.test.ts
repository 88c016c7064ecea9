// Ctrl-C of a command that runs a child process and has no signal handling of
// its own: the binary exits 130 and the child ends with it. Before, execa's
// cleanup listener made the binary's handler step aside, and `collect kaggle`
// reported the interrupted Kaggle CLI as one that "could not be started" (exit 3).
import { spawn, execFileSync } from 'node:child_process';
import { access, chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { junobenchBin } from './run-cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-signals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('signals', () => {
  it('SIGINT while collect kaggle waits for the Kaggle CLI: exit 130, the CLI process ends too', async () => {
    // A stand-in that never answers: it records that it started, then sleeps (a unique duration names it in ps).
    const seconds = String(9000 + Math.floor(Math.random() * 900));
    const started = path.join(dir, 'started');
    const kaggle = path.join(dir, 'kaggle');
    await writeFile(kaggle, `#!/bin/sh\necho "$@" > '${started}'\nexec sleep ${seconds}\n`);
    await chmod(kaggle, 0o755);
    const child = spawn(
      process.execPath,
      [junobenchBin, 'collect', 'kaggle', 'alice/house', '--kaggle', kaggle, '--out', path.join(dir, 'out')],
      {
        cwd: dir,
        env: { ...process.env, KAGGLE_API_TOKEN: 'test-token', CI: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const sleeping = () =>
      execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.trim() === `sleep ${seconds}`);
    const deadline = Date.now() + 120_000;
    while (
      Date.now() < deadline &&
      !(await access(started).then(
        () => true,
        () => false,
      ))
    )
      await new Promise((r) => setTimeout(r, 100));
    expect(sleeping(), stderr).toHaveLength(1);
    child.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<string>((r) => setTimeout(() => r('still running 60 s after SIGINT'), 60_000)),
    ]);
    if (typeof code === 'string') child.kill('SIGKILL');
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('junobench: interrupted (SIGINT); outputs not complete were not written');
    expect(stderr).not.toMatch(/could not be started/);
    const gone = Date.now() + 30_000;
    while (sleeping().length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 200));
    expect(sleeping()).toEqual([]);
  }, 200_000);
});
