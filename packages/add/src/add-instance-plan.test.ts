import { describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { mineNotebookCrashes, planExecution, validateNotebook, type Notebook } from '@junobench/notebook';
import {
  chooseCrash,
  hasNoSavedRun,
  idPrefixOfLibrary,
  nextInstanceId,
  parseNotebookLanguages,
  planExpectedCrash,
  planReproducedNotebook,
  planRequires,
  planSameCode,
  rewriteDataPaths,
} from './add-instance-plan.js';

type Cell = { src: string; count?: number | null; error?: [string, string]; md?: boolean };

function nb(cells: Cell[]): Notebook {
  return validateNotebook({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: cells.map((c, i) =>
      c.md
        ? { cell_type: 'markdown', id: `m${i}`, metadata: {}, source: c.src }
        : {
            cell_type: 'code',
            id: `c${i}`,
            metadata: {},
            execution_count: c.count === undefined ? i + 1 : c.count,
            source: c.src,
            outputs: c.error
              ? [{ output_type: 'error', ename: c.error[0], evalue: c.error[1], traceback: [] }]
              : [{ output_type: 'stream', name: 'stdout', text: 'x\n' }],
          },
    ),
  });
}

const codeSources = (n: Notebook) =>
  n.cells.filter((c) => c.cell_type === 'code').map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source));

describe('planReproducedNotebook', () => {
  it('keeps file order and the cells up to the crash when the session ran top to bottom', () => {
    const n = nb([
      { src: 'a = 1' },
      { md: true, src: '# title' },
      { src: 'b = a' },
      { src: "b['x']", error: ['TypeError', 'no'] },
      { src: 'after()' },
      { md: true, src: 'end' },
    ]);
    const p = planReproducedNotebook(n, mineNotebookCrashes(n)[0]!);
    expect(p.order).toBe('file');
    expect(codeSources(p.notebook)).toEqual(['a = 1', 'b = a', "b['x']"]);
    expect(p.notebook.cells.map((c) => c.cell_type)).toEqual(['code', 'markdown', 'code', 'code']);
    expect(p.crashCell).toBe(2);
    for (const c of p.notebook.cells)
      if (c.cell_type === 'code') expect([c.outputs, c.execution_count]).toEqual([[], null]);
  });

  it('leaves out a cell before the chosen crash that saved an error of its own (the replay would stop there)', () => {
    const n = nb([
      { src: 'import numpy as np' },
      { src: 'np.zeros(2) + np.zeros(3)', error: ['ValueError', 'operands could not be broadcast'] },
      { src: "d = {}\nd['k']", error: ['KeyError', "'k'"] },
    ]);
    const second = mineNotebookCrashes(n)[1]!;
    const p = planReproducedNotebook(n, second);
    expect(p.order).toBe('file');
    expect(codeSources(p.notebook)).toEqual(['import numpy as np', "d = {}\nd['k']"]);
    expect([p.keptCells, p.droppedErrors, p.crashCell]).toEqual([[0, 2], [1], 1]);
    // Out of order too: the erring cell ran before the crash in the session.
    const o = nb([
      { src: 'x = 1', count: 3 },
      { src: 'y = w', count: 1, error: ['NameError', "name 'w' is not defined"] },
      { src: 'x + q', count: 4, error: ['NameError', "name 'q' is not defined"] },
      { src: 'q = 2', count: 2 },
    ]);
    const po = planReproducedNotebook(o, mineNotebookCrashes(o)[1]!);
    expect([po.order, po.keptCells, po.droppedErrors]).toEqual(['execution-count', [0, 2, 3], [1]]);
    expect(planExecution(po.notebook, 'execution-count')).toEqual([2, 0, 1]);
    // The first crash keeps everything before it.
    expect(planReproducedNotebook(n, mineNotebookCrashes(n)[0]!).droppedErrors).toEqual([]);
  });

  it('replays by execution count when the saved counts show cells run out of order', () => {
    // The user ran cell 2 (count 1), then cell 0 (2), then the crash in cell 1 (3); cell 3 never ran.
    const n = nb([
      { src: 'x = 1', count: 2 },
      { src: 'y = z', count: 3, error: ['NameError', "name 'z' is not defined"] },
      { src: 'del z', count: 1 },
      { src: 'z = 0', count: null },
    ]);
    const p = planReproducedNotebook(n, mineNotebookCrashes(n)[0]!);
    expect(p.order).toBe('execution-count');
    expect(codeSources(p.notebook)).toEqual(['x = 1', 'y = z', 'del z']);
    expect(p.crashCell).toBe(1);
    // Replay: del z (1), x = 1 (2), then the crash (3).
    expect(planExecution(p.notebook, 'execution-count')).toEqual([2, 0, 1]);
  });

  it('puts a cell re-run after the crash back at the count its earlier run left free', () => {
    // Ran top to bottom (1, 2, 3), crashed at 4, then re-ran cell 1 (5): count 2, which no cell holds, was its first
    // run.
    const n = nb([
      { src: 'import pandas as pd', count: 1 },
      { src: "df = pd.DataFrame({'a': [1]})", count: 5 },
      { src: 'df.a.sum()', count: 3 },
      { src: "df['b']", count: 4, error: ['KeyError', "'b'"] },
    ]);
    const p = planReproducedNotebook(n, mineNotebookCrashes(n)[0]!);
    expect(p.rerunAfter).toEqual([{ cell: 1, savedCount: 5, replayedAt: 2 }]);
    // The replay is the file's order again: a plain top-to-bottom run.
    expect([p.order, p.keptCells, p.crashCell]).toEqual(['file', [0, 1, 2, 3], 3]);
    for (const c of p.notebook.cells) if (c.cell_type === 'code') expect(c.execution_count).toBeNull();
  });

  it.each([
    // [saved counts, crash cell, kept, replay (by the renumbered counts), re-run cells]
    [
      'free count after the cell above, out of file order',
      [1, 6, 2, 3, 5],
      4,
      [0, 1, 2, 3, 4],
      [0, 2, 3, 1, 4],
      [{ cell: 1, savedCount: 6, replayedAt: 4 }],
    ],
    [
      'two re-run cells take the free counts in file order',
      [1, 7, 8, 4, 5],
      4,
      [0, 1, 2, 3, 4],
      'file',
      [
        { cell: 1, savedCount: 7, replayedAt: 2 },
        { cell: 2, savedCount: 8, replayedAt: 3 },
      ],
    ],
    [
      'more re-run cells than free counts: the rest did not run before',
      [1, 6, 7, 3],
      3,
      [0, 1, 3],
      [0, 1, 3],
      [
        { cell: 1, savedCount: 6, replayedAt: 2 },
        { cell: 2, savedCount: 7, replayedAt: null },
      ],
    ],
    [
      'no free count after the cell above: left out',
      [2, 5, 3, 4],
      3,
      [0, 2, 3],
      [0, 2, 3],
      [{ cell: 1, savedCount: 5, replayedAt: null }],
    ],
    [
      'no free count at all: left out',
      [1, 4, 2, 3],
      3,
      [0, 2, 3],
      [0, 2, 3],
      [{ cell: 1, savedCount: 4, replayedAt: null }],
    ],
    [
      'a cell below the crash that ran before it still counts',
      [1, 5, 4, 2],
      2,
      [0, 1, 2, 3],
      [0, 3, 1, 2],
      [{ cell: 1, savedCount: 5, replayedAt: 3 }],
    ],
  ] as const)('%s', (_what, counts, crashAt, kept, replay, rerun) => {
    const n = nb(
      counts.map((count, i) =>
        i === crashAt
          ? { src: `crash_${i}`, count, error: ['NameError', 'x'] as [string, string] }
          : { src: `v${i} = ${i}`, count },
      ),
    );
    const p = planReproducedNotebook(n, mineNotebookCrashes(n)[0]!);
    expect(p.keptCells).toEqual(kept);
    expect(p.rerunAfter).toEqual(rerun);
    if (replay === 'file') expect(p.order).toBe('file');
    else
      expect([p.order, planExecution(p.notebook, 'execution-count').map((i) => p.keptCells[i])]).toEqual([
        'execution-count',
        replay,
      ]);
  });

  it('replays by execution count when a cell before the crash never ran', () => {
    const n = nb([
      { src: 'import pandas', count: 1 },
      { src: 'df = load()', count: null },
      { src: 'df.x', count: 2, error: ['NameError', "name 'df' is not defined"] },
    ]);
    const p = planReproducedNotebook(n, mineNotebookCrashes(n)[0]!);
    expect(p.order).toBe('execution-count');
    expect(codeSources(p.notebook)).toEqual(['import pandas', 'df.x']);
  });

  it('rewrites Kaggle input paths in the kept cells', () => {
    const n = nb([
      { src: "df = pd.read_csv('/kaggle/input/house/train.csv')" },
      { src: "df['p']", error: ['KeyError', "'p'"] },
    ]);
    const p = planReproducedNotebook(n, mineNotebookCrashes(n)[0]!, { mounts: ['house'], complete: true });
    expect(codeSources(p.notebook)[0]).toBe("df = pd.read_csv('data/house/train.csv')");
    expect(p.rewrites).toEqual(['/kaggle/input/house → data/house']);
    expect(p.unresolvedInputs).toEqual([]);
  });

  it('leaves a Kaggle input no collected source holds as it is, and names its cell', () => {
    const n = nb([
      { src: "a = pd.read_csv('/kaggle/input/house/train.csv')" },
      { src: "b = pd.read_csv('/kaggle/input/weather/2020.csv')\nm = load('/kaggle/input/house/m.bin')" },
      { src: "b['p']", error: ['KeyError', "'p'"] },
    ]);
    const p = planReproducedNotebook(n, mineNotebookCrashes(n)[0]!, { mounts: ['house'], complete: true });
    expect(codeSources(p.notebook).slice(0, 2)).toEqual([
      "a = pd.read_csv('data/house/train.csv')",
      "b = pd.read_csv('/kaggle/input/weather/2020.csv')\nm = load('data/house/m.bin')",
    ]);
    expect(p.unresolvedInputs).toEqual([{ cell: 1, path: '/kaggle/input/weather' }]);
  });
});

describe('rewriteDataPaths', () => {
  const kaggle = (mounts: string[], topLevel: Record<string, string[]> = {}) => ({
    mounts,
    complete: true,
    topLevel: new Map(Object.entries(topLevel)),
  });
  const refs = {
    ...kaggle(['house', 'titanic']),
    refs: new Map([
      ['datasets/alice/house', 'house'],
      ['competitions/titanic', 'titanic'],
    ]),
  };
  const plain = { mounts: [], complete: false };
  it.each([
    ["pd.read_csv('/kaggle/input/house/train.csv')", kaggle(['house']), "pd.read_csv('data/house/train.csv')", []],
    ['pd.read_csv("../input/house/train.csv")', kaggle(['house']), 'pd.read_csv("data/house/train.csv")', []],
    // Old one-source kernels: a file of that source, straight under ../input.
    [
      "pd.read_csv('../input/train.csv')",
      kaggle(['house'], { house: ['train.csv', 'test.csv'] }),
      "pd.read_csv('data/house/train.csv')",
      [],
    ],
    // Not provably that source's: its files are not known (not downloaded), or it is not among them, or another input
    // entirely.
    [
      "pd.read_csv('../input/train.csv')",
      kaggle(['house']),
      "pd.read_csv('../input/train.csv')",
      ['../input/train.csv'],
    ],
    [
      "pd.read_csv('../input/other.csv')",
      kaggle(['house'], { house: ['train.csv'] }),
      "pd.read_csv('../input/other.csv')",
      ['../input/other.csv'],
    ],
    [
      "pd.read_csv('/kaggle/input/weather/2020.csv')",
      kaggle(['house'], { house: ['train.csv'] }),
      "pd.read_csv('/kaggle/input/weather/2020.csv')",
      ['/kaggle/input/weather'],
    ],
    [
      "load('/kaggle/input/bert/pytorch/base/1/w.bin')",
      kaggle(['house', 'titanic']),
      "load('/kaggle/input/bert/pytorch/base/1/w.bin')",
      ['/kaggle/input/bert'],
    ],
    [
      "pd.read_csv('/kaggle/input/x/train.csv')",
      kaggle([]),
      "pd.read_csv('/kaggle/input/x/train.csv')",
      ['/kaggle/input/x'],
    ],
    // Kaggle's newer layout: /kaggle/input/datasets/<owner>/<slug>, /kaggle/input/competitions/<slug>.
    ["pd.read_csv('/kaggle/input/datasets/alice/house/train.csv')", refs, "pd.read_csv('data/house/train.csv')", []],
    ["pd.read_csv('/kaggle/input/datasets/Alice/house')", refs, "pd.read_csv('data/house')", []],
    ["pd.read_csv('/kaggle/input/competitions/titanic/test.csv')", refs, "pd.read_csv('data/titanic/test.csv')", []],
    [
      "pd.read_csv('/kaggle/input/datasets/bob/house/train.csv')",
      refs,
      "pd.read_csv('/kaggle/input/datasets/bob/house/train.csv')",
      ['/kaggle/input/datasets/bob/house'],
    ],
    [
      "pd.read_csv('/kaggle/input/competitions/spaceship/a.csv')",
      refs,
      "pd.read_csv('/kaggle/input/competitions/spaceship/a.csv')",
      ['/kaggle/input/competitions/spaceship'],
    ],
    ["os.listdir('/kaggle/input/datasets')", refs, "os.listdir('/kaggle/input/datasets')", ['/kaggle/input/datasets']],
    [
      "pd.read_csv('/kaggle/input/datasets/o/s/a.csv')",
      kaggle(['datasets']),
      "pd.read_csv('data/datasets/o/s/a.csv')",
      [],
    ],
    [
      "pd.read_csv('/kaggle/input/datasets/bob/weather/a.csv')",
      { mounts: [], complete: false },
      "pd.read_csv('data/weather/a.csv')",
      [],
    ],
    // A plain notebook: nothing is known, the user puts its inputs under data/.
    ["pd.read_csv('/kaggle/input/x/train.csv')", plain, "pd.read_csv('data/x/train.csv')", []],
    ["pd.read_csv('../input/train.csv')", plain, "pd.read_csv('data/train.csv')", []],
    ["os.listdir('/kaggle/input')", kaggle(['house']), "os.listdir('data')", []],
    ["PATH = '../input/'", kaggle(['house']), "PATH = 'data/'", []],
    ["df.to_csv('/kaggle/working/submission.csv')", plain, "df.to_csv('submission.csv')", []],
    ["os.chdir('/kaggle/working')", plain, "os.chdir('.')", []],
    ["x = '/kaggle/inputs/y'", plain, "x = '/kaggle/inputs/y'", []],
  ])('%s (%j)', (src, inputs, out, unresolved) => {
    const left = new Set<string>();
    expect(rewriteDataPaths(src, inputs, undefined, left)).toBe(out);
    expect([...left]).toEqual(unresolved);
  });
});

describe('planRequires', () => {
  const stdlib = new Set(['os', 'sys']);
  it.each([
    ['the imports outside the standard library', ['numpy', 'os', 'pandas'], 'KeyError', "'x'", ['numpy', 'pandas']],
    // The crash is the module's absence: requiring it would skip the instance everywhere.
    [
      'not the module whose absence is the crash',
      ['numpy', 'xgboost'],
      'ModuleNotFoundError',
      "No module named 'xgboost'",
      ['numpy'],
    ],
    // Here the package is there and a submodule is not: the package stays required.
    [
      'the package of a missing submodule',
      ['sklearn'],
      'ModuleNotFoundError',
      "No module named 'sklearn.externals'",
      ['sklearn'],
    ],
    [
      'a name missing from a module that is there',
      ['keras'],
      'ImportError',
      "cannot import name 'np_utils' from 'keras.utils'",
      ['keras'],
    ],
  ])('%s', (_what, imports, ename, evalue, requires) =>
    expect(planRequires(imports, { ename, evalue }, stdlib)).toEqual(requires),
  );
});

describe('parseNotebookLanguages', () => {
  const withMeta = (metadata: Record<string, unknown>) => ({ ...nb([{ src: 'x' }]), metadata });
  it.each([
    [{ kernelspec: { name: 'python3', language: 'python' }, language_info: { name: 'python' } }, ['python']],
    [{ kernelspec: { name: 'ir', display_name: 'R', language: 'R' }, language_info: { name: 'R' } }, ['R']],
    [{ kernelspec: { name: 'julia-1.9', language: 'julia' } }, ['julia']],
    [{ kernelspec: { language: 'Python' }, language_info: { name: 'python' } }, ['Python']],
    [{ kernelspec: { language: 'python' }, language_info: { name: 'R' } }, ['python', 'R']],
    [{}, []],
  ])('%j → %j', (metadata, languages) => expect(parseNotebookLanguages(withMeta(metadata))).toEqual(languages));
});

describe('planExpectedCrash', () => {
  const mined = (ename: string, evalue: string) => ({ codeCell: 0, executionCount: 1, ename, evalue, traceback: [] });
  it.each([
    [mined('KeyError', "'price'"), { ename: 'KeyError', evalue: "'price'", match: 'exact' }],
    [
      mined('tensorflow.python.framework.errors_impl.InvalidArgumentError', 'bad'),
      { ename: 'InvalidArgumentError', evalue: 'bad', match: 'exact' },
    ],
    [
      mined('TypeError', "'<' not supported at 0x7f3a2b1c9d00"),
      { evalue: "^'<' not supported at 0x[0-9a-fA-F]+$", match: 'regex' },
    ],
    [
      mined(
        'ImportError',
        "cannot import name 'LabelEncoderder' from 'sklearn.preprocessing' (C:\\Users\\pc\\lib\\site-packages\\sklearn\\preprocessing\\__init__.py)",
      ),
      {
        evalue: "^cannot import name 'LabelEncoderder' from 'sklearn\\.preprocessing' \\([^()\\n]*\\.py\\)$",
        match: 'regex',
      },
    ],
    [mined('ValueError', `first line\n${'x'.repeat(400)}`), { evalue: 'first line', match: 'prefix' }],
  ])('%j', (crash, expected) => expect(planExpectedCrash(crash, 3)).toMatchObject({ ...expected, cell: 3 }));

  it('rewrites data paths in the message as in the cells: the reproduced notebook opens data/…', () => {
    const fnf = mined('FileNotFoundError', "[Errno 2] No such file or directory: '/kaggle/input/house/trian.csv'");
    expect(planExpectedCrash(fnf, 0, { mounts: ['house'], complete: true })).toEqual({
      ename: 'FileNotFoundError',
      evalue: "[Errno 2] No such file or directory: 'data/house/trian.csv'",
      match: 'exact',
      cell: 0,
    });
    const other = mined('FileNotFoundError', "[Errno 2] No such file or directory: '/kaggle/input/weather/a.csv'");
    expect(planExpectedCrash(other, 0, { mounts: ['house'], complete: true }).evalue).toBe(
      "[Errno 2] No such file or directory: '/kaggle/input/weather/a.csv'",
    );
    expect(
      planExpectedCrash(mined('OSError', "cannot write '/kaggle/working/sub.csv'"), 0, { mounts: [], complete: false })
        .evalue,
    ).toBe("cannot write 'sub.csv'");
  });
});

describe('chooseCrash', () => {
  const c = (n: number) => ({ codeCell: n, executionCount: n + 1, ename: 'E', evalue: `m${n}`, traceback: [] });
  it('takes the only one, or the nth (1-based)', () => {
    expect(chooseCrash([c(0)], undefined, 'x.ipynb').index).toBe(0);
    expect(chooseCrash([c(0), c(3)], 2, 'x.ipynb').crash.codeCell).toBe(3);
  });
  it('lists them when there are several and none is chosen', () => {
    expect(() => chooseCrash([c(0), c(3)], undefined, 'x.ipynb')).toThrow(
      /2 saved error outputs; choose one with --crash <n>:\n {2}1: code cell 0 \(In \[1\]\): E: m0\n {2}2: code cell 3 \(In \[4\]\): E: m3/,
    );
  });
  it('never takes a KeyboardInterrupt (the user stopping a cell): the one real crash beside it is taken; none is refused', () => {
    const ki = (n: number) => ({
      codeCell: n,
      executionCount: n + 1,
      ename: 'KeyboardInterrupt',
      evalue: '',
      traceback: [],
    });
    expect(chooseCrash([ki(0), c(2)], undefined, 'x.ipynb')).toMatchObject({ index: 1, crash: { codeCell: 2 } });
    expect(() => chooseCrash([ki(0)], undefined, 'x.ipynb')).toThrow(
      /only saved error output is KeyboardInterrupt \(the user stopped a cell\): there is no crash to reproduce/,
    );
    expect(() => chooseCrash([ki(0), c(2)], 1, 'x.ipynb')).toThrow(
      /--crash 1 is a KeyboardInterrupt \(the user stopped code cell 0\), not a crash/,
    );
    expect(() => chooseCrash([ki(0), c(2), c(3)], undefined, 'x.ipynb')).toThrow(
      /1: code cell 0 \(In \[1\]\): KeyboardInterrupt \(the user stopped the cell: not a crash\)\n {2}2: code cell 2/,
    );
  });
  it("refuses a notebook whose only error outputs name no exception (a front end's messages), saying what they were", () => {
    const failed = validateNotebook({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [0, 1].map((i) => ({
        cell_type: 'code',
        id: `c${i}`,
        metadata: {},
        execution_count: null,
        source: '',
        outputs: [
          {
            output_type: 'error',
            ename: '',
            evalue: '',
            traceback: ['\u001b[1;31mFailed to start the Kernel. \n', 'Kernel Python 3.9.6 is not usable.'],
          },
        ],
      })),
    });
    // mineNotebookCrashes leaves them out (packages/notebook), so add sees no crash.
    expect(() => chooseCrash([], undefined, 'x.ipynb', failed)).toThrow(
      /only error outputs \(2\) name no exception: a message its front end saved \(code cell 0: "Failed to start the Kernel\."\), not an exception its code raised/,
    );
  });
  it('refuses a notebook without error outputs, and a number out of range', () => {
    expect(() => chooseCrash([], undefined, 'x.ipynb')).toThrow(/no saved error output/);
    // Ran without error vs saved without any outputs: each needs something else from the user.
    expect(() => chooseCrash([], undefined, 'x.ipynb', nb([{ src: 'x = 1' }]))).toThrow(
      /^the notebook has no saved error output: there is no crash/,
    );
    expect(() =>
      chooseCrash(
        [],
        undefined,
        'x.ipynb',
        validateNotebook({
          nbformat: 4,
          nbformat_minor: 5,
          metadata: {},
          cells: [{ cell_type: 'code', id: 'a', metadata: {}, execution_count: null, source: 'x', outputs: [] }],
        }),
      ),
    ).toThrow(
      /no saved error output — it has no saved outputs or execution counts at all \(saved without outputs, or never run\)/,
    );
    expect(() => chooseCrash([c(0)], 2, 'x.ipynb')).toThrow(JunoError);
  });
});

describe('a pulled Kaggle source and the notebook with its outputs', () => {
  // What `kaggle kernels pull` writes: the stored source, outputs and counts cleared.
  const pulled = (cells: Cell[]) => {
    const n = nb(cells);
    for (const c of n.cells) if (c.cell_type === 'code') Object.assign(c, { outputs: [], execution_count: null });
    return n;
  };
  it('hasNoSavedRun: only when no code cell keeps an output or a count', () => {
    expect(hasNoSavedRun(pulled([{ src: 'x = 1' }, { src: 'x.y' }]))).toBe(true);
    expect(hasNoSavedRun(nb([{ src: 'x = 1' }]))).toBe(false);
    expect(hasNoSavedRun(nb([{ src: '# notes', md: true }]))).toBe(true);
  });
  it.each<[string, Cell[], Cell[], string | null]>([
    [
      'same code, outputs aside',
      [{ src: 'x = 1' }, { src: 'x.y' }],
      [
        { src: 'x = 1', count: 4 },
        { src: 'x.y', error: ['AttributeError', 'y'] },
      ],
      null,
    ],
    [
      'markdown cells and line endings aside',
      [{ src: 'a', md: true }, { src: 'x = 1\ny = 2' }],
      [{ src: 'x = 1\r\ny = 2\n' }],
      null,
    ],
    ['one cell edited', [{ src: 'x = 1' }, { src: 'x.y' }], [{ src: 'x = 1' }, { src: 'x.z' }], 'code cell 1 differs'],
    [
      'a cell more',
      [{ src: 'x = 1' }],
      [{ src: 'x = 1' }, { src: 'x.y' }],
      'it has 2 code cells, the collected notebook 1',
    ],
  ])('planSameCode: %s', (_, collected, downloaded, expected) => {
    expect(planSameCode(pulled(collected), nb(downloaded))).toBe(expected);
  });
});

describe('ids', () => {
  it.each([
    ['tensorflow/keras', 'tensorflow'],
    ['None', 'NBspecific'],
    [undefined, 'NBspecific'],
    ['pandas', 'pandas'],
  ])('prefix of %s is %s', (lib, prefix) => expect(idPrefixOfLibrary(lib)).toBe(prefix));

  it('takes one more than the highest existing or deprecated number', () => {
    expect(nextInstanceId('pandas', ['pandas_1', 'pandas_3', 'numpy_9'])).toBe('pandas_4');
    expect(nextInstanceId('pandas', ['pandas_1', 'pandas_7'])).toBe('pandas_8');
    expect(nextInstanceId('torch', [])).toBe('torch_1');
    expect(nextInstanceId('a.b', ['axb_5'])).toBe('a.b_1');
  });
});
