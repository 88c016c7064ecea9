import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { execaRunner } from './find-python.js';
import { SANDBOX_LAYOUT, findBubblewrap, insideRunFolder, planSandboxArgs, type HostLayout } from './local-sandbox.js';

const host: HostLayout = {
  roots: [{ path: '/bin', link: 'usr/bin' }, { path: '/lib', link: 'usr/lib' }, { path: '/lib64' }],
  secrets: { files: ['/etc/shadow'], folders: ['/etc/ssh'] },
  python: ['/home/ana/venv'],
};
const args = planSandboxArgs({
  runFolder: '/tmp/junobench-7-x/box',
  runnerDir: '/src/runtime/python',
  host,
  seccompFd: 3,
});
/** The value following `flag` at each place it occurs, as `[source, target]` pairs for binds. */
const pairs = (flag: string) =>
  args.flatMap((a, i) =>
    a === flag ? [[args[i + 1], ['--ro-bind', '--bind', '--symlink'].includes(flag) ? args[i + 2] : undefined]] : [],
  );

describe('planSandboxArgs', () => {
  it('makes every namespace, no capability, no new user namespace, pid 1 the command, a new session', () => {
    for (const flag of [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
      '--as-pid-1',
    ])
      expect(args).toContain(flag);
    expect(pairs('--cap-drop')).toEqual([['ALL', undefined]]);
    expect(args).not.toContain('--share-net');
    expect(args.at(-1)).toBe('--');
  });

  it('binds the system read-only, the run folder (and its tmp as /tmp) writable, nothing else', () => {
    expect(pairs('--bind')).toEqual([
      ['/tmp/junobench-7-x/box', SANDBOX_LAYOUT.run],
      ['/tmp/junobench-7-x/box/tmp', '/tmp'],
    ]);
    expect(pairs('--ro-bind')).toEqual([
      ['/usr', '/usr'],
      ['/lib64', '/lib64'],
      ['/etc', '/etc'],
      ['/dev/null', '/etc/shadow'],
      ['/sys', '/sys'],
      ['/home/ana/venv', '/home/ana/venv'],
      ['/src/runtime/python', SANDBOX_LAYOUT.runner],
    ]);
    expect(pairs('--symlink')).toEqual([
      ['usr/bin', '/bin'],
      ['usr/lib', '/lib'],
    ]);
    // The root (bubblewrap's own tmpfs) and the masked secret folders are read-only once everything is mounted.
    expect(pairs('--remount-ro')).toEqual([
      ['/etc/ssh', undefined],
      ['/', undefined],
    ]);
    expect(args.indexOf('--remount-ro', args.indexOf('--dev'))).toBeGreaterThan(args.lastIndexOf('--bind'));
  });

  it('gives the sandbox a home and a working directory in the run folder, and the seccomp filter on fd 3', () => {
    expect(pairs('--chdir')).toEqual([[SANDBOX_LAYOUT.run, undefined]]);
    expect(args.join(' ')).toContain(`--setenv HOME ${SANDBOX_LAYOUT.run}/home`);
    expect(pairs('--seccomp')).toEqual([['3', undefined]]);
    expect(planSandboxArgs({ runFolder: '/r', runnerDir: '/p', host })).not.toContain('--seccomp');
  });
});

describe('insideRunFolder', () => {
  it.each([
    ['/tmp/run/box', '/run/junobench'],
    ['/tmp/run/box/scratch-1/nb.ipynb', '/run/junobench/scratch-1/nb.ipynb'],
  ])('%s → %s', (hostPath, inside) => expect(insideRunFolder('/tmp/run/box', hostPath)).toBe(inside));

  it('refuses a path outside the run folder', () => {
    expect(() => insideRunFolder('/tmp/run/box', '/tmp/run/owner.json')).toThrow(JunoError);
  });
});

describe('findBubblewrap', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'jb-bwrap-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const fake = async (name: string, script: string) => {
    const file = path.join(dir, name);
    await writeFile(file, `#!/bin/sh\n${script}\n`);
    await chmod(file, 0o755);
    return file;
  };

  it('returns bubblewrap when it makes a sandbox', async () => {
    const ok = await fake('bwrap-ok', 'exit 0');
    expect(await findBubblewrap({ JUNOBENCH_BWRAP: ok }, execaRunner)).toBe(ok);
  });

  it.each([
    ['missing', undefined, /no-such-bwrap is not installed/],
    [
      'without user namespaces',
      'echo "bwrap: No permissions to creating new namespace" >&2; exit 1',
      /No permissions to creating new namespace/,
    ],
  ])('says why it cannot sandbox (%s), exit 3, with what to do', async (_name, script, why) => {
    const bwrap = script ? await fake('bwrap-refuses', script) : path.join(dir, 'no-such-bwrap');
    const error = await findBubblewrap({ JUNOBENCH_BWRAP: bwrap }, execaRunner).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code: 'E_ENV_SANDBOX', exitCode: 3, message: expect.stringMatching(why) });
    expect((error as JunoError).hint).toMatch(/--unsandboxed.*|bubblewrap/);
  });
});
