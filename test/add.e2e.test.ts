// Bad input to `collect` and `add`, end to end: each gives a clear message and
// an exit code, and leaves raw/ exactly as it was.
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashInstanceTree, type Instance } from '@junobench/core';
import { runJunobench, type CliRun } from './run-cli.js';
import {
  FAKE_KAGGLE_BINARY,
  FAKE_KAGGLE_KEY,
  FakeKaggle,
} from '../packages/sources/test-helpers/fake-kaggle/fake-kaggle-server.js';
import { GithubContentsServer } from '../packages/sources/test-helpers/github-contents-server.js';
import { makeNotebook } from '../packages/sources/test-helpers/notebooks.js';

let proj: string;
let fake: FakeKaggle;
let gh: GithubContentsServer;
let env: NodeJS.ProcessEnv;
const crashing = makeNotebook([
  { source: 'import pandas as pd\ndf = pd.DataFrame({"a": [1]})' },
  { source: "df['b']", error: { ename: 'KeyError', evalue: "'b'" } },
]);

beforeAll(async () => {
  proj = await mkdtemp(path.join(os.tmpdir(), 'jb-add-e2e-'));
  await mkdir(path.join(proj, 'raw', 'instances'), { recursive: true });
  fake = await FakeKaggle.create(path.join(proj, 'kaggle-server'));
  await fake.addKernel('bob/secret-kernel', crashing, { is_private: true });
  await fake.addKernel('alice/evil-data-crash', crashing, { dataset_sources: ['mallory/evil'] });
  await fake.addDataset('mallory/evil', {
    title: 'Evil',
    licenses: [{ name: 'CC0-1.0' }],
    files: { 'ok.csv': 'a\n1\n' },
    zipExtra: [{ name: '../../../escaped.txt', content: 'pwned' }],
  });
  await fake.addKernel('alice/unlicensed-crash', crashing, { dataset_sources: ['carol/scraped'] });
  await fake.addDataset('carol/scraped', { title: 'Scraped prices', licenses: [], files: { 'prices.csv': 'a\n1\n' } });
  gh = await new GithubContentsServer().start();
  gh.addRepo('octo/nbs', { 'notes.ipynb': '# not a notebook\n' });
  env = fake.env({
    GITHUB_API_URL: gh.url,
    JUNOBENCH_CACHE_DIR: path.join(proj, 'cache'),
    JUNOBENCH_AUTHOR_SALT: 'e2e-salt-0123456789abcdef',
  });
  await writeFile(path.join(proj, 'no-error.ipynb'), JSON.stringify(makeNotebook([{ source: 'x = 1' }])));
  await writeFile(
    path.join(proj, 'two-errors.ipynb'),
    JSON.stringify(
      makeNotebook([
        { source: 'import numpy as np' },
        {
          source: 'np.zeros(2) + np.zeros(3)',
          error: { ename: 'ValueError', evalue: 'operands could not be broadcast together with shapes (2,) (3,) ' },
        },
        { source: 'y', error: { ename: 'NameError', evalue: "name 'y' is not defined" } },
      ]),
    ),
  );
  await writeFile(path.join(proj, 'crash.ipynb'), JSON.stringify(crashing));
  await writeFile(
    path.join(proj, 'nul.ipynb'),
    JSON.stringify(
      makeNotebook([
        { source: 'x = 1' },
        { source: 'y = "\u0000"\n{}["k"]', error: { ename: 'KeyError', evalue: "'k'" } },
      ]),
    ),
  );
  await writeFile(path.join(proj, 'not-a-notebook.ipynb'), '{"cells": "nope"}');
});
afterAll(() => gh.stop());

const run = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  runJunobench(args, { cwd: proj, env: { ...env, ...extra } });
const rawHash = () => hashInstanceTree(path.join(proj, 'raw'));

/** Runs the command and checks that raw/ is byte for byte what it was. */
async function unchanged(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const before = await rawHash();
  const r = await run(args, extra);
  expect(await rawHash(), `raw/ changed by: junobench ${args.join(' ')}`).toBe(before);
  expect(r.stderr + r.stdout).not.toContain(FAKE_KAGGLE_KEY);
  expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
  return r;
}

describe('bad input to collect', () => {
  it('an unknown Kaggle kernel or GitHub file: exit 2, named', async () => {
    const k = await unchanged(['collect', 'kaggle', 'alice/no-such-kernel']);
    expect(k.code).toBe(2);
    expect(k.stderr).toMatch(/Kaggle kernel alice\/no-such-kernel was not found on Kaggle \(404\)/);
    const g = await unchanged(['collect', 'github', 'octo/nbs:missing.ipynb@main']);
    expect(g.code).toBe(2);
    expect(g.stderr).toMatch(/octo\/nbs:missing\.ipynb@main was not found on GitHub/);
    const bad = await unchanged(['collect', 'github', 'octo/nbs:../x.ipynb@main']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not a valid GitHub notebook ref: the path must be relative/);
  }, 600_000);

  it('a private kernel: exit 2, says so', async () => {
    const r = await unchanged(['collect', 'kaggle', 'bob/secret-kernel']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /Kaggle refused access to Kaggle kernel bob\/secret-kernel \(403 Forbidden\): the kernel is private/,
    );
  }, 600_000);

  it('a GitHub .ipynb that is not a notebook: exit 2', async () => {
    const r = await unchanged(['collect', 'github', 'octo/nbs:notes.ipynb@main']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[E_NOTEBOOK\].*not a notebook: invalid JSON/);
  }, 600_000);

  it('an archive entry escaping the target folder: exit 2, nothing extracted', async () => {
    const r = await unchanged(['collect', 'kaggle', 'alice/evil-data-crash', '--with-data']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /E_UNSAFE_ARCHIVE.*mallory\/evil is unsafe: unsafe archive entry "\.\.\/\.\.\/\.\.\/escaped\.txt"/,
    );
    await expect(readFile(path.join(proj, 'escaped.txt'))).rejects.toThrow();
    await expect(readFile(path.join(proj, 'cache', 'escaped.txt'))).rejects.toThrow();
  }, 600_000);

  it('credentials absent: exit 3 with where they go; no kaggle CLI: exit 3 with how to install it', async () => {
    const home = path.join(proj, 'empty-home');
    await mkdir(home, { recursive: true });
    const r = await unchanged(['collect', 'kaggle', 'alice/unlicensed-crash'], {
      KAGGLE_USERNAME: '',
      KAGGLE_KEY: '',
      HOME: home,
      KAGGLE_CONFIG_DIR: path.join(home, 'nope'),
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/not authenticated with Kaggle .*You must authenticate/);
    expect(r.stderr).toMatch(
      /hint: set KAGGLE_API_TOKEN to an API token .* or put it in ~\/\.kaggle\/access_token; or, with a legacy key, set KAGGLE_USERNAME and KAGGLE_KEY, or put kaggle\.json/,
    );
    const none = await unchanged(['collect', 'kaggle', 'alice/unlicensed-crash'], {
      PATH: path.dirname(process.execPath),
    });
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/the Kaggle CLI \(`kaggle`\) was not found on PATH[\s\S]*pip install kaggle/);
  }, 600_000);

  it('finds the CLI through --kaggle too', async () => {
    const r = await run(['collect', 'kaggle', 'alice/unlicensed-crash', '--kaggle', FAKE_KAGGLE_BINARY], {
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
    });
    expect(r.code, r.stderr).toBe(0);
  }, 600_000);

  it('a dataset without a licence is collected and flagged: its data must be synthetic', async () => {
    const r = await run(['collect', 'kaggle', 'alice/unlicensed-crash', '--with-data']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/carol\/scraped "Scraped prices" — licence NONE \(data must be synthetic\)/);
    expect(r.stdout).toMatch(
      /warning: dataset carol\/scraped declares no licence: its data may not be shared.*synthetic data/,
    );
    const a = await run([
      'add',
      'raw/sources/kaggle/alice/unlicensed-crash',
      '--notebook',
      fake.pageNotebook('alice/unlicensed-crash'),
      '--no-verify',
      '--id',
      'unlicensed_1',
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/Scraped prices \(none declared \(the data may not be shared: use synthetic data\)\)/);
  }, 600_000);
});

describe('a Kaggle kernel comes without its saved outputs (kaggle kernels pull gives the source only)', () => {
  it('collect says so; add of the source folder alone: exit 2 saying where the outputs are; with --notebook: the draft, reproduced', async () => {
    await fake.addKernel(
      'alice/outputs-crash',
      makeNotebook([
        { source: 'import pandas as pd\ndf = pd.DataFrame({"price": [1, 2]})', count: 1 },
        { source: "df['prize'].mean()", count: 2, error: { ename: 'KeyError', evalue: "'prize'" } },
      ]),
    );
    const c = await run(['collect', 'kaggle', 'alice/outputs-crash']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain(
      "warning: the notebook came without saved outputs (`kaggle kernels pull` returns a notebook's source only), so add has no error output to mine: " +
        'download the notebook with its outputs from https://www.kaggle.com/code/alice/outputs-crash (the version that crashed) and run ' +
        '`junobench add <this source folder> --notebook <downloaded.ipynb>`',
    );
    // What the real CLI writes: the stored source, no outputs, no counts.
    const pulled = JSON.parse(
      await readFile(path.join(proj, 'raw/sources/kaggle/alice/outputs-crash/outputs-crash.ipynb'), 'utf8'),
    ) as { cells: { outputs: unknown[]; execution_count: unknown }[] };
    expect(pulled.cells.map((x) => [x.outputs, x.execution_count])).toEqual([
      [[], null],
      [[], null],
    ]);

    const alone = await unchanged(['add', 'raw/sources/kaggle/alice/outputs-crash', '--no-verify']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain(
      "the notebook collected from Kaggle (outputs-crash.ipynb) has no saved outputs: `kaggle kernels pull` returns a notebook's source only",
    );
    expect(alone.stderr).toContain(
      'download the notebook with its outputs from https://www.kaggle.com/code/alice/outputs-crash (the version that crashed), then: junobench add',
    );
    expect(alone.stderr).toContain('--notebook <downloaded.ipynb>');

    // Another notebook's outputs are refused: its code is not the collected one's.
    await writeFile(
      path.join(proj, 'other-version.ipynb'),
      JSON.stringify(
        makeNotebook([
          { source: 'import pandas as pd\ndf = pd.DataFrame({"price": [1, 2]})', count: 1 },
          { source: "df['prize'].sum()", count: 2, error: { ename: 'KeyError', evalue: "'prize'" } },
        ]),
      ),
    );
    const other = await unchanged([
      'add',
      'raw/sources/kaggle/alice/outputs-crash',
      '--notebook',
      'other-version.ipynb',
      '--no-verify',
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      'is not the notebook collected in alice/outputs-crash (outputs-crash.ipynb): code cell 1 differs',
    );
    // kernels pull only ever gives the latest version: the crash may be in an older one.
    expect(other.stderr).toContain(
      'If the crash is only in an older version, add that notebook on its own (junobench add <file.ipynb>)',
    );

    const ok = await run([
      'add',
      'raw/sources/kaggle/alice/outputs-crash',
      '--notebook',
      fake.pageNotebook('alice/outputs-crash'),
      '--runtime',
      'local',
      '--id',
      'pandas_93',
    ]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/verify {5}crash reproduced as mined/);
    expect(ok.stdout).not.toContain('came without saved outputs');
    // original.ipynb is the notebook with its outputs; the lock keeps the pulled source's hash (what sources fetch
    // compares).
    expect(await readFile(path.join(proj, 'raw/instances/pandas_93/original.ipynb'), 'utf8')).toBe(
      await readFile(fake.pageNotebook('alice/outputs-crash'), 'utf8'),
    );
    const lock = JSON.parse(await readFile(path.join(proj, 'raw/sources.lock.json'), 'utf8')) as {
      instances: Record<string, { notebook: { sha256: string } }>;
    };
    const record = JSON.parse(
      await readFile(path.join(proj, 'raw/sources/kaggle/alice/outputs-crash/source.json'), 'utf8'),
    ) as { notebook: { sha256: string } };
    expect(lock.instances.pandas_93!.notebook.sha256).toBe(record.notebook.sha256);
  }, 600_000);

  it('--notebook without a source folder: exit 2', async () => {
    const r = await unchanged(['add', 'crash.ipynb', '--notebook', 'crash.ipynb', '--no-verify']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--notebook goes with a source folder from `junobench collect`');
  }, 600_000);
});

describe('bad input to add', () => {
  it('a NUL byte in a code cell: exit 2 naming the notebook and the cell, before anything runs', async () => {
    const r = await unchanged(['add', 'nul.ipynb', '--runtime', 'local']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/nul\.ipynb.*code cell 1 \(counting code cells from 0\) holds a NUL byte/);
  }, 600_000);

  it('a notebook with no error output: exit 2', async () => {
    const r = await unchanged(['add', 'no-error.ipynb', '--no-verify']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-error\.ipynb: the notebook has no saved error output: there is no crash to reproduce/);
  }, 600_000);

  it('several errors without --crash: exit 2 listing them with cell, exception and message; --crash chooses', async () => {
    const r = await unchanged(['add', 'two-errors.ipynb', '--no-verify']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the notebook has 2 saved error outputs; choose one with --crash <n>:');
    expect(r.stderr).toContain(
      '1: code cell 1 (In [2]): ValueError: operands could not be broadcast together with shapes (2,) (3,)',
    );
    expect(r.stderr).toContain("2: code cell 2 (In [3]): NameError: name 'y' is not defined");
    // Run for real: the cell before it that saved its own ValueError is left out, or the replay would stop there.
    const ok = await run(['add', 'two-errors.ipynb', '--crash', '2', '--runtime', 'local']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const id = /^draft (\S+) written to/m.exec(ok.stdout)?.[1];
    expect(id, ok.stdout).toBeDefined();
    expect(ok.stdout).toMatch(/verify {5}crash reproduced as mined/);
    expect(ok.stdout).toMatch(
      /warning: code cell 1 of the original raised its own ValueError: operands could not be broadcast .* left out of reproduced\.ipynb/,
    );
    const inst = JSON.parse(await readFile(path.join(proj, 'raw/instances', id!, 'instance.json'), 'utf8')) as Instance;
    expect(inst.crash).toEqual({ ename: 'NameError', evalue: "name 'y' is not defined", match: 'exact', cell: 1 });
  }, 600_000);

  it('a cell re-run after the crash: its earlier run, which the crash needs, is replayed where the saved counts leave a gap', async () => {
    // As Kaggle notebooks are often saved: run top to bottom, crash at In [4], then cell 1 re-run (In [5]).
    // Its first run (In [2], the count no cell holds) made df; without it the replay stops on a NameError.
    await writeFile(
      path.join(proj, 'rerun.ipynb'),
      JSON.stringify(
        makeNotebook([
          { source: 'import pandas as pd', count: 1 },
          { source: 'df = pd.DataFrame({"a": [1, 2]})', count: 5 },
          { source: 'df["b"] = df.a * 2', count: 3 },
          { source: 'df["c"].sum()', count: 4, error: { ename: 'KeyError', evalue: "'c'" } },
        ]),
      ),
    );
    const r = await run(['add', 'rerun.ipynb', '--runtime', 'local', '--id', 'NBspecific_80']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/verify {5}crash reproduced as mined/);
    expect(r.stdout).toContain('order      file (4 code cells kept from the original)');
    expect(r.stdout).toMatch(
      /warning: code cell 1 of the original was re-run after the crash \(In \[5\], the crash is In \[4\]\): its earlier run is replayed where the saved counts leave a gap \(In \[2\]\)/,
    );
    // Here the earlier run came after cells 2 and 3 (In [4]), and cell 2 set df to something else: only that order
    // gives the KeyError.
    await writeFile(
      path.join(proj, 'rerun-late.ipynb'),
      JSON.stringify(
        makeNotebook([
          { source: 'import pandas as pd', count: 1 },
          { source: 'df = pd.DataFrame({"a": [1, 2]})', count: 7 },
          { source: 'df = None', count: 2 },
          { source: 'n = 2', count: 3 },
          { source: 'df["c"].sum()', count: 5, error: { ename: 'KeyError', evalue: "'c'" } },
        ]),
      ),
    );
    const late = await run(['add', 'rerun-late.ipynb', '--runtime', 'local', '--id', 'NBspecific_81']);
    expect(late.code, late.stdout + late.stderr).toBe(0);
    expect(late.stdout).toMatch(/verify {5}crash reproduced as mined/);
    const inst = JSON.parse(
      await readFile(path.join(proj, 'raw/instances/NBspecific_81/instance.json'), 'utf8'),
    ) as Instance;
    expect([inst.execution, inst.crash.cell]).toEqual([{ order: 'execution-count' }, 4]);
    const reproduced = JSON.parse(
      await readFile(path.join(proj, 'raw/instances/NBspecific_81/reproduced.ipynb'), 'utf8'),
    ) as { cells: { execution_count: number | null }[] };
    expect(reproduced.cells.map((c) => c.execution_count)).toEqual([1, 4, 2, 3, 5]);
  }, 600_000);

  it('a cell the user stopped (KeyboardInterrupt) is not a crash: the real one beside it is taken without --crash', async () => {
    await writeFile(
      path.join(proj, 'interrupted.ipynb'),
      JSON.stringify(
        makeNotebook([
          { source: 'import numpy as np\na = np.zeros((2, 3))' },
          { source: 'import time\nwhile True:\n    time.sleep(1)', error: { ename: 'KeyboardInterrupt', evalue: '' } },
          {
            source: 'a + np.zeros((4, 5))',
            error: { ename: 'ValueError', evalue: 'operands could not be broadcast together with shapes (2,3) (4,5) ' },
          },
        ]),
      ),
    );
    const r = await run(['add', 'interrupted.ipynb', '--runtime', 'local', '--id', 'numpy_90']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/verify {5}crash reproduced as mined/);
    expect(r.stdout).toContain('— error output 2 of 2');
    expect(r.stdout).toContain(
      'warning: code cell 1 of the original was stopped by the user (KeyboardInterrupt) before the chosen crash: left out of reproduced.ipynb',
    );
    const chosen = await unchanged(['add', 'interrupted.ipynb', '--crash', '1', '--no-verify']);
    expect(chosen.code).toBe(2);
    expect(chosen.stderr).toContain(
      '--crash 1 is a KeyboardInterrupt (the user stopped code cell 1), not a crash: no replay reproduces it',
    );
  }, 600_000);

  it("the draft's suggested labels are those of `labels suggest` on the same notebook, cells and execution counts included", async () => {
    // Saved out of order: the cell that made the column ran after the crashing one.
    await writeFile(
      path.join(proj, 'out-of-order.ipynb'),
      JSON.stringify(
        makeNotebook([
          { source: 'import pandas as pd\ndf = pd.DataFrame({"a": [1]})', count: 1 },
          { source: "df['total'].mean()", count: 3, error: { ename: 'KeyError', evalue: "'total'" } },
          { source: "df['total'] = df.a * 2", count: 2 },
        ]),
      ),
    );
    const json = path.join(proj, 'out-of-order.suggest.json');
    const s = await unchanged(['labels', 'suggest', 'out-of-order.ipynb', '--json', json]);
    expect(s.code, s.stderr).toBe(0);
    const report = JSON.parse(await readFile(json, 'utf8')) as {
      crashes: Array<{ suggestions: Instance['suggestedLabels'] }>;
    };
    const a = await run(['add', 'out-of-order.ipynb', '--no-verify', '--id', 'NBspecific_90']);
    expect(a.code, a.stderr).toBe(0);
    const inst = JSON.parse(
      await readFile(path.join(proj, 'raw/instances/NBspecific_90/instance.json'), 'utf8'),
    ) as Instance;
    expect(inst.suggestedLabels).toEqual(report.crashes[0]!.suggestions);
    expect(inst.suggestedLabels).toMatchObject({ library: { value: 'None' }, rootCause: { value: 'NB specific' } });
    expect((inst.suggestedLabels?.library?.evidence ?? []).join(' ')).toMatch(
      /ran out of order.*from the traceback alone: pandas/s,
    );
  }, 600_000);

  it('a notebook whose kernel is R: exit 2, nothing written (its cells would run in a Python kernel)', async () => {
    await writeFile(
      path.join(proj, 'r-kernel.ipynb'),
      JSON.stringify(
        makeNotebook(
          [
            {
              source: 'library(notapkg)',
              error: { ename: 'ERROR', evalue: "Error in library(notapkg): there is no package called 'notapkg'\n" },
            },
          ],
          { kernelspec: { name: 'ir', display_name: 'R', language: 'R' }, language_info: { name: 'R' } },
        ),
      ),
    );
    const r = await unchanged(['add', 'r-kernel.ipynb', '--runtime', 'local']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(
      'r-kernel.ipynb, field "metadata.kernelspec.language": the notebook\'s kernel language is R, not Python: only Python notebooks can become JunoBench instances',
    );
  }, 600_000);

  it('a crash in the first cell that is a missing module: reproduced, and the module is not required (or every runtime would skip it)', async () => {
    await writeFile(
      path.join(proj, 'no-module.ipynb'),
      JSON.stringify(
        makeNotebook([
          {
            source: 'import numpy as np\nimport not_a_real_pkg_jb22',
            error: { ename: 'ModuleNotFoundError', evalue: "No module named 'not_a_real_pkg_jb22'" },
          },
          { source: 'np.zeros(2)' },
        ]),
      ),
    );
    const r = await run(['add', 'no-module.ipynb', '--runtime', 'local', '--id', 'NBspecific_82']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('order      file (1 code cell kept from the original)');
    expect(r.stdout).toMatch(/verify {5}crash reproduced as mined/);
    const inst = JSON.parse(
      await readFile(path.join(proj, 'raw/instances/NBspecific_82/instance.json'), 'utf8'),
    ) as Instance;
    expect([inst.requires, inst.crash.cell]).toEqual([['numpy'], 0]);
  }, 600_000);

  it("a script's sys.argv, saved from VS Code's kernel: reproduced, any kernel argument matching the one it quoted", async () => {
    // VS Code starts kernels with --stdin=… --control=… --f=<file>; the runtime's kernel gets -f <connection file>.
    await writeFile(
      path.join(proj, 'argv.ipynb'),
      JSON.stringify(
        makeNotebook([
          {
            source: 'import sys\ninfile = sys.argv[1]\nMIN_SCORE = float(sys.argv[2])',
            error: { ename: 'ValueError', evalue: "could not convert string to float: '--stdin=9013'" },
          },
        ]),
      ),
    );
    const r = await run(['add', 'argv.ipynb', '--runtime', 'local', '--id', 'NBspecific_83']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/verify {5}crash reproduced as mined/);
    const inst = JSON.parse(
      await readFile(path.join(proj, 'raw/instances/NBspecific_83/instance.json'), 'utf8'),
    ) as Instance;
    expect(inst.crash.match).toBe('regex');
    expect(inst.reproduction?.edits?.find((e) => e.kind === 'match')?.why).toMatch(
      /the kernel's command line \(sys\.argv\)/,
    );
  }, 600_000);

  it('a file that is not a notebook, or no file at all: exit 2', async () => {
    const r = await unchanged(['add', 'not-a-notebook.ipynb', '--no-verify']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/E_NOTEBOOK.*not a valid nbformat 4\.0 notebook|E_NOTEBOOK.*unsupported notebook format/);
    const missing = await unchanged(['add', 'nope.ipynb', '--no-verify']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.ipynb: no such notebook or source folder/);
  }, 600_000);

  it('the default id skips deprecated ids; an existing or deprecated --id is refused (exit 2); --dry-run writes nothing', async () => {
    // The prefix is the suggested library's: ask for the draft first (a dry run writes nothing).
    const dry = await unchanged(['add', 'crash.ipynb', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const m = /^dry run: draft (\S+)_(\d+) would be written to raw\/instances\/\1_\2$/m.exec(dry.stdout);
    expect(m, dry.stdout).not.toBeNull();
    const [prefix, n] = [m![1]!, Number(m![2])];
    // Deprecate that id (raw/deprecated.json: docs/releases.md, "`deprecate`"): it is never handed out again.
    await writeFile(
      path.join(proj, 'raw', 'deprecated.json'),
      JSON.stringify({ instances: [{ id: `${prefix}_${n}`, deprecatedIn: '0.2.0', reason: 'duplicate' }] }),
    );
    const first = await run(['add', 'crash.ipynb', '--no-verify']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`draft ${prefix}_${n + 1} written to raw/instances/${prefix}_${n + 1}`);
    const taken = await unchanged(['add', 'crash.ipynb', '--id', `${prefix}_${n + 1}`, '--no-verify']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(
      new RegExp(`an instance named ${prefix}_${n + 1} already exists in \\S*raw/instances`),
    );
    const deprecated = await unchanged(['add', 'crash.ipynb', '--id', `${prefix}_${n}`, '--no-verify']);
    expect(deprecated.code).toBe(2);
    expect(deprecated.stderr).toContain(`${prefix}_${n} is a deprecated instance id: ids are never reused`);
    const invalid = await unchanged(['add', 'crash.ipynb', '--id', '../evil', '--no-verify']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/"\.\.\/evil" is not a valid instance id/);
  }, 600_000);

  it('a notebook whose input file is not in the draft and cannot be derived: the draft stays, exit 1, needs-data, with where the file goes and how to re-check', async () => {
    // A pickled model cannot be made up from the code that loads it (a table could: see the next test).
    await writeFile(
      path.join(proj, 'reads-file.ipynb'),
      JSON.stringify(
        makeNotebook([
          { source: "import pickle\nmodel = pickle.load(open('model.pkl', 'rb'))" },
          { source: "model['prize']", error: { ename: 'KeyError', evalue: "'prize'" } },
        ]),
      ),
    );
    const r = await run(['add', 'reads-file.ipynb', '--runtime', 'local']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const id = /^draft (\S+) written to/m.exec(r.stdout)?.[1];
    expect(r.stdout).toContain('edit       path (code cell 0): model.pkl → data/model.pkl');
    expect(r.stdout).toMatch(/verify {5}NOT reproduced as mined: crash-mismatch — FileNotFoundError/);
    expect(r.stdout).toMatch(/cause {6}needs-data — an input file is missing/);
    expect(r.stdout).toContain(
      `hint       the notebook reads a file the draft does not have: put its data under raw/instances/${id}/data/ — reproduced.ipynb opens data/model.pkl: put that file at raw/instances/${id}/data/model.pkl`,
    );
    expect(r.stdout).toContain(
      'warning: code cell 0 of the original reads model.pkl: the draft lacks it (a file of type .pkl cannot be derived from the code) — put it at data/model.pkl, or give it with --data',
    );
    expect(r.stdout).toContain(`check      after editing the draft: junobench verify ${id}`);
  }, 600_000);

  it('a plain notebook that reads /kaggle/input: the path goes into data/, a stand-in is derived, the warning names the cell, the path and the file', async () => {
    await writeFile(
      path.join(proj, 'kaggle-path.ipynb'),
      JSON.stringify(
        makeNotebook([
          { source: "import pandas as pd\ntrain = pd.read_csv('/kaggle/input/titanic/train.csv')" },
          { source: "train['Fare'].mean()", error: { ename: 'KeyError', evalue: "'Fare'" } },
        ]),
      ),
    );
    const r = await run(['add', 'kaggle-path.ipynb', '--runtime', 'local', '--id', 'pandas_94']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('paths      /kaggle/input/titanic → data/titanic\n');
    expect(r.stdout).toContain('synthetic  data/titanic/train.csv: left out (the crash is their absence): Fare;');
    expect(r.stdout).toMatch(/verify {5}crash reproduced as mined/);
    const warning =
      'code cell 0 of the original reads /kaggle/input/titanic/train.csv, a Kaggle input (no datasets come with a plain notebook: ' +
      '`junobench collect kaggle <owner>/<kernel> --with-data` and adding the source folder brings them): no such file was given or collected, ' +
      'so a synthetic stand-in derived from the code is in data/titanic/train.csv — put the real file there to reproduce on the real data';
    expect(r.stdout).toContain(`warning: ${warning}`);
    const inst = JSON.parse(
      await readFile(path.join(proj, 'raw/instances/pandas_94/instance.json'), 'utf8'),
    ) as Instance;
    expect(inst.reproduction?.warnings).toContain(warning);
    expect(inst.data?.synthetic?.files).toEqual(['data/titanic/train.csv']);
  }, 600_000);

  it('a Kaggle input that is not the one collected dataset goes into data/ as a derived stand-in, with a warning naming the cell and the path', async () => {
    // An old one-source kernel reads its dataset's file straight from ../input; it also reads another kernel's output,
    // which collect records but never downloads. Only the first is provably the dataset: the other is made up.
    await fake.addKernel(
      'alice/two-inputs-crash',
      makeNotebook([
        { source: "import pandas as pd\nprices = pd.read_csv('../input/prices.csv')" },
        { source: "weather = pd.read_csv('/kaggle/input/weather-prep/2020.csv')" },
        { source: "prices['total']", error: { ename: 'KeyError', evalue: "'total'" } },
      ]),
      { dataset_sources: ['datalab/prices'], kernel_sources: ['bob/weather-prep'] },
    );
    await fake.addDataset('datalab/prices', {
      title: 'Prices',
      licenses: [{ name: 'CC0-1.0' }],
      files: { 'prices.csv': 'a\n1\n' },
    });
    const c = await run(['collect', 'kaggle', 'alice/two-inputs-crash', '--with-data']);
    expect(c.code, c.stderr).toBe(0);
    const r = await run([
      'add',
      'raw/sources/kaggle/alice/two-inputs-crash',
      '--notebook',
      fake.pageNotebook('alice/two-inputs-crash'),
      '--no-verify',
      '--id',
      'pandas_90',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('paths      ../input/prices.csv → data/prices/prices.csv\n');
    expect(r.stdout).toContain(
      'edit       path (code cell 1): /kaggle/input/weather-prep/2020.csv → data/weather-prep/2020.csv',
    );
    expect(r.stdout).toContain(
      'warning: code cell 1 of the original reads /kaggle/input/weather-prep/2020.csv, which is not one of the collected sources (/kaggle/input/prices): ' +
        'no such file was given or collected, so a synthetic stand-in derived from the code is in data/weather-prep/2020.csv — put the real file there',
    );
    const reproduced = JSON.parse(
      await readFile(path.join(proj, 'raw/instances/pandas_90/reproduced.ipynb'), 'utf8'),
    ) as { cells: { source: string }[] };
    expect(reproduced.cells.map((c) => c.source).slice(0, 2)).toEqual([
      "import pandas as pd\nprices = pd.read_csv('data/prices/prices.csv')",
      "weather = pd.read_csv('data/weather-prep/2020.csv')",
    ]);
    expect(await readFile(path.join(proj, 'raw/instances/pandas_90/data/prices/prices.csv'), 'utf8')).toBe('a\n1\n');
    const inst = JSON.parse(
      await readFile(path.join(proj, 'raw/instances/pandas_90/instance.json'), 'utf8'),
    ) as Instance;
    expect(inst.data?.synthetic?.files).toEqual(['data/weather-prep/2020.csv']);
  }, 600_000);

  it("Kaggle's newer mount layout (/kaggle/input/datasets/<owner>/<slug>/) reads the collected dataset: reproduced", async () => {
    await fake.addKernel(
      'alice/new-layout-crash',
      makeNotebook([
        { source: "import pandas as pd\nsales = pd.read_csv('/kaggle/input/datasets/datalab/sales/sales.csv')" },
        { source: "sales['prize'].sum()", error: { ename: 'KeyError', evalue: "'prize'" } },
      ]),
      { dataset_sources: ['datalab/sales'] },
    );
    await fake.addDataset('datalab/sales', {
      title: 'Sales',
      licenses: [{ name: 'CC0-1.0' }],
      files: { 'sales.csv': 'price\n1\n' },
    });
    expect((await run(['collect', 'kaggle', 'alice/new-layout-crash', '--with-data'])).code).toBe(0);
    const r = await run([
      'add',
      'raw/sources/kaggle/alice/new-layout-crash',
      '--notebook',
      fake.pageNotebook('alice/new-layout-crash'),
      '--runtime',
      'local',
      '--id',
      'pandas_92',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('paths      /kaggle/input/datasets/datalab/sales → data/sales\n');
    expect(r.stdout).toMatch(/verify {5}crash reproduced as mined/);
  }, 600_000);

  it('a crash that is the missing input file itself: the expected message names the path the reproduced notebook opens', async () => {
    // A misspelt file name (the benchmark's "io error"): the replay opens data/house/trian.csv and fails the same way.
    await writeFile(
      path.join(proj, 'misspelt.ipynb'),
      JSON.stringify(
        makeNotebook([
          {
            source: "import pandas as pd\ndf = pd.read_csv('/kaggle/input/house/trian.csv')",
            error: {
              ename: 'FileNotFoundError',
              evalue: "[Errno 2] No such file or directory: '/kaggle/input/house/trian.csv'",
            },
          },
        ]),
      ),
    );
    const r = await run(['add', 'misspelt.ipynb', '--runtime', 'local', '--id', 'pandas_91']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "crash      FileNotFoundError: [Errno 2] No such file or directory: 'data/house/trian.csv' (code cell 0 of reproduced.ipynb, exact match)",
    );
    expect(r.stdout).toMatch(/verify {5}crash reproduced as mined/);
  }, 600_000);

  it('a runtime that cannot start leaves nothing behind (exit 3)', async () => {
    const r = await unchanged(['add', 'crash.ipynb', '--python', path.join(proj, 'no-python')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/E_ENV_PYTHON/);
  }, 600_000);

  it('the same crash of the same collected notebook is not added twice (exit 2, naming the instance)', async () => {
    // (Its own bytes: the check is on the notebook's sha256, so a byte-identical copy under another ref counts as the
    // same.)
    await fake.addKernel(
      'alice/added-twice-crash',
      makeNotebook([
        { source: 'import pandas as pd\ndf = pd.DataFrame({"twice": [1]})' },
        { source: "df['b']", error: { ename: 'KeyError', evalue: "'b'" } },
      ]),
    );
    expect((await run(['collect', 'kaggle', 'alice/added-twice-crash'])).code).toBe(0);
    const first = await run([
      'add',
      'raw/sources/kaggle/alice/added-twice-crash',
      '--notebook',
      fake.pageNotebook('alice/added-twice-crash'),
      '--no-verify',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const id = /^draft (\S+) written to/m.exec(first.stdout)?.[1];
    const again = await unchanged([
      'add',
      'raw/sources/kaggle/alice/added-twice-crash',
      '--notebook',
      fake.pageNotebook('alice/added-twice-crash'),
      '--no-verify',
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`this crash of alice/added-twice-crash (KeyError: 'b') is already instance ${id}`);
  }, 600_000);

  it('an unreadable sources lock stops add before anything is written', async () => {
    await run(['collect', 'kaggle', 'alice/unlicensed-crash']);
    const lock = path.join(proj, 'raw', 'sources.lock.json');
    const before = await readFile(lock, 'utf8').catch(() => undefined);
    await writeFile(lock, '{"instances": {"x": {"platform": "svn"}}}');
    const r = await unchanged([
      'add',
      'raw/sources/kaggle/alice/unlicensed-crash',
      '--notebook',
      fake.pageNotebook('alice/unlicensed-crash'),
      '--no-verify',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/sources\.lock\.json.*not a valid sources-lock/);
    if (before === undefined) await writeFile(lock, '{"instances": {}}\n');
    else await writeFile(lock, before);
    await chmod(lock, 0o644);
  }, 600_000);
});
