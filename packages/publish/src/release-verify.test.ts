// What `release verify` decides, on a release prepared from a small curated fixture: the static checks, then whether
// the instances are re-run at all (never after a failed check; not when no runtime can be made here) and how each
// re-run outcome compares with the release's verification.json. The runtime is a scripted client that answers as a
// kernel would (no kernel, no container): which outcome each notebook gets is the test's choice.
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JunoError, type ReleaseManifest, type RunResult } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from '@junobench/runtime';
import { writeCuratedFixture, type Fixture } from '../../release/test-helpers/release.js';
import { prepareRelease } from './release-prepare.js';
import { verifyRelease } from './release-verify.js';

let f: Fixture;
/** The release folder (archive, SHA256SUMS, manifest.json, croissant.json). */
let release: string;

beforeAll(async () => {
  // pandas_2 was skipped when the release was verified (its module was missing there).
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }, { id: 'pandas_2', status: 'skipped' }]);
  const { written } = await prepareRelease({
    version: '0.1.0',
    curatedDir: f.curated,
    outDir: f.releases,
    recipeDir: f.recipe,
    deprecatedFile: path.join(f.root, 'no-deprecated.json'),
    metadataFile: path.join(f.root, 'no-release.json'),
    sourceDateEpoch: 1_767_225_600,
    toolchain: { version: '0.1.0', commit: 'c0ffee', dirty: false },
    toolchainRepository: 'https://github.com/junobench/junobench',
  });
  release = path.dirname(written!.archive.path);
}, 120_000);
afterAll(() => rm(f.root, { recursive: true, force: true }));

/** What the checks harness prints in a kernel when the cells hid nothing and there is no checks.py. */
function harnessReport(r: NotebookRun): RunResult['probe'] {
  const nonce = /finish\("([0-9a-f]+)"/.exec(r.probe?.finish ?? '')?.[1];
  if (!nonce) return undefined;
  const line = (o: object) => `__junobench_checks__:${nonce} ${JSON.stringify(o)}\n`;
  return {
    setup: { status: 'ok', stdout: '', durationMs: 1 },
    finish: {
      status: 'ok',
      stdout: line({ evidence: [], positions: r.cells.length }) + line({ done: true }),
      durationMs: 1,
    },
  };
}

type Answer = 'as-released' | 'fixed-crashes';

/**
 * A runtime whose kernel has the given modules and answers each run as the fixture's notebooks behave (the
 * reproduced one raises KeyError 'price' in its one cell, the fixed one completes), unless `answers` says otherwise
 * for an instance.
 */
function scriptedRuntime(modules: Record<string, string | null>, answers: Record<string, Answer> = {}) {
  const state = { ran: [] as string[], closed: false };
  const keyError = (r: NotebookRun): RunResult => ({
    id: r.id,
    status: 'error',
    cells: [{ index: 0, status: 'error', ename: 'KeyError', evalue: "'price'", traceback: [], durationMs: 1 }],
    durationMs: 1,
  });
  const runtime: Runtime = {
    kind: 'local',
    describe: async () => ({ kind: 'local', python: '/scripted/python3', packages: modules }),
    fingerprint: async () => 'local:scripted',
    close: async () => {
      state.closed = true;
    },
    async run(runs: readonly NotebookRun[], o: RunOptions = {}) {
      return runs.map((r) => {
        state.ran.push(r.id);
        const instance = r.id.split('/')[0]!;
        const result: RunResult =
          r.notebook === 'reproduced.ipynb' || answers[instance] === 'fixed-crashes'
            ? keyError(r)
            : {
                id: r.id,
                status: 'completed',
                cells: r.cells.map((index) => ({ index, status: 'ok' as const, durationMs: 1 })),
                durationMs: 1,
                probe: harnessReport(r),
              };
        o.onResult?.(result, r);
        return result;
      });
    },
  };
  return { runtime, state };
}

describe('verifyRelease', { timeout: 120_000 }, () => {
  it('--no-run: the static checks alone, over the archive and the files beside it', async () => {
    let asked = false;
    const v = await verifyRelease({
      input: release,
      run: false,
      createRuntime: async () => {
        asked = true;
        throw new Error('not asked for');
      },
    });
    expect(v).toMatchObject({ version: '0.1.0', problems: [], ok: true });
    expect(v.manifest?.instances.map((i) => i.id)).toEqual(['numpy_1', 'pandas_1', 'pandas_2']);
    expect(v.archive?.path).toBe(path.join(release, 'junobench-0.1.0.tar.gz'));
    expect(v.filesChecked).toBeGreaterThan(0);
    expect(v.rerun).toBeUndefined();
    expect(asked).toBe(false);
  });

  it('re-runs every instance in the runtime made for the manifest: the same outcomes pass, a skipped one verified here is an improvement', async () => {
    const { runtime, state } = scriptedRuntime({ pandas: '1.5.3' });
    let given: ReleaseManifest | undefined;
    const v = await verifyRelease({
      input: release,
      run: true,
      createRuntime: async (m) => {
        given = m;
        return runtime;
      },
    });
    expect(given?.version).toBe('0.1.0');
    expect(v.rerun).toMatchObject({ runtime: 'local', instances: 3, differences: [], unchecked: [] });
    expect(v.rerun?.improved).toEqual(['pandas_2']);
    expect(v.ok).toBe(true);
    expect(state.ran.filter((id) => id.startsWith('numpy_1/'))).toEqual(['numpy_1/reproduced/0', 'numpy_1/fixed/0']);
    expect(state.closed).toBe(true);
  });

  it('names each instance whose outcome differs, with what was released and what was seen', async () => {
    const { runtime } = scriptedRuntime({ pandas: '1.5.3' }, { pandas_1: 'fixed-crashes' });
    const v = await verifyRelease({ input: release, run: true, createRuntime: async () => runtime });
    expect(v.ok).toBe(false);
    expect(v.rerun?.differences).toHaveLength(1);
    const d = v.rerun!.differences[0]!;
    expect(d.instance).toBe('pandas_1');
    expect(d.expected).toEqual({ status: 'verified', reproduced: 'crash-reproduced', fixed: 'fixed-ok' });
    expect(d.observed.fixed).toBe('fixed-crashed');
    expect(d.message).toMatch(/^pandas_1: fixed fixed-ok → fixed-crashed/);
  });

  it('an instance this runtime cannot run (a missing module) is unchecked: neither a pass nor a difference', async () => {
    const { runtime } = scriptedRuntime({ pandas: null });
    const v = await verifyRelease({ input: release, run: true, createRuntime: async () => runtime });
    expect(v.rerun?.differences).toEqual([]);
    expect(v.rerun?.unchecked.map((u) => u.instance)).toEqual(['numpy_1', 'pandas_1', 'pandas_2']);
    expect(v.rerun?.unchecked[0]!.reason).toMatch(/pandas/);
    expect(v.ok).toBe(true);
  });

  it('no runtime here (exit 3): the checks are still reported, the re-run is said to be unavailable, not passed', async () => {
    const missing = new JunoError('E_ENV_ENGINE', 'no container engine here', { exitCode: 3 });
    const v = await verifyRelease({
      input: release,
      run: true,
      createRuntime: async () => {
        throw missing;
      },
    });
    expect(v).toMatchObject({ problems: [], ok: false });
    expect(v.rerunUnavailable).toBe(missing);
    expect(v.rerun).toBeUndefined();
    // Any other failure to make the runtime is not an environment that is missing: it is thrown.
    const bug = new Error('a bug');
    await expect(
      verifyRelease({
        input: release,
        run: true,
        createRuntime: async () => {
          throw bug;
        },
      }),
    ).rejects.toBe(bug);
  });

  it('a release whose files are not the released ones fails its checks and is never run', async () => {
    const copy = path.join(f.root, 'tampered');
    await cp(release, copy, { recursive: true });
    const manifest = path.join(copy, 'manifest.json');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"0.1.0"', '"0.1.1"'));
    let asked = false;
    const v = await verifyRelease({
      input: copy,
      run: true,
      createRuntime: async () => {
        asked = true;
        return scriptedRuntime({ pandas: '1.5.3' }).runtime;
      },
    });
    expect(v.problems.length).toBeGreaterThan(0);
    expect(v.rerunRefused).toMatch(/^the release failed \d+ checks? above: its files are not the ones released/);
    expect(asked).toBe(false);
    expect(v.ok).toBe(false);
  });
});
