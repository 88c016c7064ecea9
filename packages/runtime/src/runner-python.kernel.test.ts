// The Python runner's own checks, in the same test run as everything else:
// its unit tests (stdlib unittest, in packages/runtime/python/tests) and
// pyflakes over every module. Needs the interpreter tools/setup-python.sh
// sets up (with Debian's python3-pyflakes); no kernel is started.
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { findPython } from './find-python.js';
import { RUNNER_DIR } from './runner-path.js';

let python: string;

beforeAll(async () => {
  python = await findPython();
});

describe('the Python runner', () => {
  it('passes its unit tests', async () => {
    const r = await execa(python, ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
      cwd: RUNNER_DIR,
      reject: false,
      all: true,
    });
    const ran = Number(/^Ran (\d+) tests? in/m.exec(r.all ?? '')?.[1] ?? 0);
    expect(ran, r.all).toBeGreaterThan(20);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/^OK\b/m);
  }, 120_000);

  it('is clean under pyflakes', async () => {
    const has = await execa(python, ['-c', 'import pyflakes'], { reject: false });
    if (has.exitCode !== 0) {
      throw new Error(
        `pyflakes is not installed for ${python}: run \`sh tools/setup-python.sh\` (as root; it installs Debian's python3-pyflakes)`,
      );
    }
    const r = await execa(
      python,
      ['-m', 'pyflakes', 'junobench_runner.py', 'junobench_reaper.py', 'jbrunner', 'tests'],
      { cwd: RUNNER_DIR, reject: false, all: true },
    );
    expect(r.all, 'pyflakes found problems').toBe('');
    expect(r.exitCode).toBe(0);
  }, 120_000);
});
