// leaveOutIndependentFailures on a draft in a temporary folder, with the real analyser (Debian's python3). The run
// again is the caller's `verify`: here it reads the draft's reproduced.ipynb and says where that replay would stop.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Instance, InstanceVerification } from '@junobench/core';
import { execaRunner } from '@junobench/runtime';
import { leaveOutIndependentFailures } from './add-independent-failures.js';

const analyzer = { python: '/usr/bin/python3', run: execaRunner };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-independent-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function draft(cells: string[]): Promise<{ staging: string; instance: Instance }> {
  const staging = await mkdtemp(path.join(dir, 'draft-'));
  const nb = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: cells.map((source, i) => ({
      cell_type: 'code',
      id: `c${i}`,
      metadata: {},
      execution_count: null,
      outputs: [],
      source,
    })),
  };
  await writeFile(path.join(staging, 'reproduced.ipynb'), JSON.stringify(nb));
  const instance = {
    id: 'd',
    status: 'draft',
    crash: { ename: 'KeyError', evalue: "'y'", match: 'exact', cell: cells.length - 1 },
    execution: { order: 'file' },
  } as unknown as Instance;
  await writeFile(path.join(staging, 'instance.json'), JSON.stringify(instance));
  return { staging, instance };
}

const result = (
  cell: number | undefined,
  failure = { ename: 'KeyError', evalue: '"[\'b\'] not found in axis"' },
): InstanceVerification =>
  ({
    instance: 'd',
    status: 'not-verified',
    reproduced: {
      version: 'reproduced',
      outcome: cell === undefined ? 'crash-reproduced' : 'crash-mismatch',
      ...(cell === undefined ? {} : { observed: { ...failure, cell } }),
      durationMs: 1,
      runtime: { kind: 'local' },
    },
  }) as unknown as InstanceVerification;

// The replay stops at the first of `failing` still in the notebook (not commented out), else reaches the crash.
const replay = (failing: number[]) => async (at: string) => {
  const nb = JSON.parse(await readFile(path.join(at, 'reproduced.ipynb'), 'utf8')) as {
    cells: { source: string | string[] }[];
  };
  const live = (i: number) => ![nb.cells[i]!.source].flat().join('').startsWith('# junobench:');
  return result(failing.find(live));
};

describe('leaveOutIndependentFailures', () => {
  it('leaves out a failing cell the crash does not depend on, and the cells that use what only it bound', async () => {
    const { staging, instance } = await draft([
      "import pandas as pd\nimport matplotlib.pyplot as plt\nother = pd.DataFrame({'a': [1]})",
      "shown = other.drop(['b'], axis=1)\nplt.figure()",
      'print(shown)',
      "df = pd.DataFrame({'x': [1, 2]})\nplt.plot(df.x)",
      // The crash plots too: a call on pyplot in the failing cell is not a change the crash depends on.
      "plt.title(str(df['y']))",
    ]);
    const got = await leaveOutIndependentFailures(staging, instance, result(1), replay([1]), analyzer);
    expect(got.changed).toBe(true);
    expect(got.verification.reproduced.outcome).toBe('crash-reproduced');
    const nb = JSON.parse(await readFile(path.join(staging, 'reproduced.ipynb'), 'utf8')) as {
      cells: { source: string | string[] }[];
    };
    const src = nb.cells.map((c) => [c.source].flat().join(''));
    expect(src[1]).toMatch(/^# junobench: shown = other\.drop/);
    expect(src[1]).toMatch(/it failed in the replay, and the crash does not depend on it/);
    expect(src[2]).toMatch(/^# junobench: print\(shown\)/);
    expect(src[3]).toBe("df = pd.DataFrame({'x': [1, 2]})\nplt.plot(df.x)");
    const edits = got.instance.reproduction?.edits ?? [];
    expect(edits.map((e) => [e.kind, e.cell])).toEqual([
      ['order', 1],
      ['order', 2],
    ]);
    expect(edits[0]!.why).toContain(`it failed there (KeyError: "['b'] not found in axis")`);
    expect(edits[1]!.why).toMatch(/it uses shown, which code cell 1 \(left out\) binds/);
    // Written to the draft, as the next step reads it.
    const saved = JSON.parse(await readFile(path.join(staging, 'instance.json'), 'utf8')) as Instance;
    expect(saved.reproduction?.edits).toHaveLength(2);
  }, 60_000);

  it('keeps a failing cell the crash depends on, one that writes a file, and a failure in the crash cell itself', async () => {
    const cells = [
      "import pandas as pd\ndf = pd.DataFrame({'x': [1, 2]})",
      "df.drop(['b'], axis=1, inplace=True)",
      "pd.DataFrame({'a': [1]}).to_csv('a.csv')\nraise ValueError('no')",
      "df['y']",
    ];
    for (const failing of [1, 2, 3]) {
      const { staging, instance } = await draft(cells);
      const before = await readFile(path.join(staging, 'reproduced.ipynb'), 'utf8');
      const got = await leaveOutIndependentFailures(staging, instance, result(failing), replay([failing]), analyzer);
      expect(got.changed, `failing cell ${failing}`).toBe(false);
      expect(await readFile(path.join(staging, 'reproduced.ipynb'), 'utf8')).toBe(before);
      expect(got.instance.reproduction?.edits ?? []).toEqual([]);
    }
    // A download that failed: what it fetches may be read from disk later, which name analysis does not see.
    const { staging, instance } = await draft([
      "import pandas as pd\nimport urllib.request\ndf = pd.DataFrame({'x': [1, 2]})\ndef fetch():\n    urllib.request.urlretrieve('https://example.org/t.csv', 't.csv')",
      'fetch()',
      "pd.read_csv('t.csv')\ndf['y']",
    ]);
    const offline = { ename: 'URLError', evalue: '<urlopen error [Errno -3] Temporary failure in name resolution>' };
    const got = await leaveOutIndependentFailures(staging, instance, result(1, offline), replay([1]), analyzer);
    expect(got.changed).toBe(false);
  }, 60_000);
});
