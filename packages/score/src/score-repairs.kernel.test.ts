// Repairs executed in real Jupyter kernels (the local runtime): every outcome
// of a repaired notebook with purpose-made instances, then the embedded
// benchmark's reproduced notebooks submitted as repairs (must resolve none).
// That its fixed notebooks resolve every scorable task is test/score-cli.e2e.test.ts's
// ("the oracle scores a perfect scorecard"): the oracle's repairs are the fixed
// notebooks, scored in the same local runtime.
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepairAttemptResult, RepairScore } from '@junobench/core';
import { createLocalRuntime, type Runtime } from '@junobench/runtime';
import { planTasks, type RepairKey } from './plan-tasks.js';
import { parsePredictionLines } from './read-predictions.js';
import { readTaskSources } from './read-task-sources.js';
import { scorePredictions, type TaskSet } from './score-predictions.js';
import { makeNotebook, writeTestInstance, type TestCell } from '../test-helpers/score.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
let runtime: Runtime;

beforeAll(async () => {
  try {
    runtime = await createLocalRuntime();
  } catch (e) {
    throw new Error(`these tests need the Python kernel stack: run sh tools/setup-python.sh (${(e as Error).message})`);
  }
}, 120_000);

afterAll(async () => {
  await runtime?.close();
});

/** Score answers (one per attempt, in order) to the repair tasks of an instances folder. */
async function scoreRepairs(instancesDir: string, answers: (key: RepairKey) => unknown[]): Promise<RepairScore> {
  const { sources } = await readTaskSources(instancesDir);
  const planned = planTasks(sources, { kinds: ['repair'] });
  const set: TaskSet = { ids: planned.tasks.map((t) => t.id), keys: planned.keys, instances: sources.length };
  const lines = set.ids.flatMap((id) =>
    answers(planned.keys.get(id) as RepairKey).map((answer, i) =>
      JSON.stringify({ task: 'repair', id, attempt: i + 1, answer }),
    ),
  );
  const parsed = parsePredictionLines(
    lines.map((text, i) => ({ line: i + 1, text })),
    planned.keys,
  );
  expect(parsed.problems).toEqual([]);
  const { scorecard } = await scorePredictions(set, parsed, { createRuntime: async () => runtime, jobs: 2 });
  // The harness owns the runtime's lifetime per scoring run; reopen it for the next one.
  runtime = await createLocalRuntime();
  return scorecard.repair!;
}

describe('repairs in real kernels: each kind of repair scored as documented', () => {
  let score: RepairScore;
  const base = ["d = {'cost': 3}", 'n = 2'];
  const crashCell = "total = d['price'] * n";
  const repairs: [
    name: string,
    cells: TestCell[] | { cells: string[] },
    outcome: string,
    detail?: (r: RepairAttemptResult) => void,
  ][] = [
    ['the fixed notebook', [...base, "total = d['cost'] * n", 'print(total)'], 'resolved'],
    [
      'the reproduced notebook',
      [...base, crashCell, 'print(total)'],
      'crashed',
      (r) => expect(r.error).toMatchObject({ cell: 2, ename: 'KeyError' }),
    ],
    [
      'the crash cell deleted',
      [...base, 'print(total)'],
      'cells-missing',
      (r) => expect(r.missing).toEqual([{ cell: 2, how: 'deleted' }]),
    ],
    [
      'the crash cell emptied',
      [...base, '', 'print(total)'],
      'cells-missing',
      (r) => expect(r.missing).toEqual([{ cell: 2, how: 'emptied' }]),
    ],
    [
      'the crash cell commented out',
      [...base, `# ${crashCell}`, 'print(total)'],
      'cells-missing',
      (r) => expect(r.missing).toEqual([{ cell: 2, how: 'commented-out' }]),
    ],
    [
      'the crash cell in try/except: pass',
      [...base, `try:\n    ${crashCell}\nexcept:\n    pass`, 'print(total)'],
      'suppressed',
    ],
    ['the crash cell under if False:', [...base, `if False:\n    ${crashCell}`, 'print(total)'], 'disabled'],
    [
      'a loop that never ends',
      [...base, "total = d['cost'] * n\nwhile True:\n    pass", 'print(total)'],
      'timeout',
      (r) => expect(r.crashCell).toEqual({ counterpart: 2, ran: false }),
    ],
    [
      'a repair that kills its kernel',
      [...base, "import os, signal\ntotal = d['cost'] * n\nos.kill(os.getpid(), signal.SIGKILL)", 'print(total)'],
      'kernel-died',
    ],
    [
      'a repair that reads the fixed notebook',
      [...base, "total = d['cost'] * n if open('fixed.ipynb') else 0", 'print(total)'],
      'crashed',
      (r) => expect(r.error?.ename).toBe('FileNotFoundError'),
    ],
    [
      'a repair that stops the kernel early',
      [...base, "import sys\ntotal = d['cost'] * n\nsys.exit(0)", 'print(total)'],
      'crashed',
      (r) => expect(r.error?.ename).toBe('SystemExit'),
    ],
    [
      'a fix given as a list of cells',
      { cells: [...base, "total = d.get('price', d['cost']) * n", 'print(total)'] },
      'resolved',
    ],
  ];

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-score-kernel-'));
    await writeTestInstance(dir, {
      id: 'keyerror',
      reproduced: [...base, crashCell, 'print(total)'],
      fixed: [...base, "total = d['cost'] * n", 'print(total)'],
      crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 2 },
      cellTimeoutSeconds: 5,
      timeoutSeconds: 60,
    });
    score = await scoreRepairs(dir, () =>
      repairs.map(([, cells]) => (Array.isArray(cells) ? { notebook: makeNotebook(cells) } : cells)),
    );
  }, 600_000);

  it.each(repairs.map((r, i) => [r[0], r[2], i + 1, r[3]] as const))('%s → %s', (_name, outcome, attempt, detail) => {
    const r = score.results.find((x) => x.attempt === attempt)!;
    expect(r.outcome, r.reason).toBe(outcome);
    expect(r.resolved).toBe(outcome === 'resolved');
    detail?.(r);
  });

  it('gives pass@k over the attempts (2 of 12 resolved)', () => {
    expect(score.attempts).toBe(12);
    expect(score.passAtK.find((p) => p.k === 1)!.value).toBeCloseTo(2 / 12, 12);
    expect(score.passAtK.find((p) => p.k === 12)!.value).toBe(1);
  });
});

describe('repairs that fix nothing: rejected by what they do, not how they look', () => {
  // A pandas cast that fails on a missing value; checks.py says what the fix achieves. Each non-fix below passes the
  // static rules (no handler, no constant-false guard, every cell there) and runs to the end.
  const base = ['import contextlib\nimport pandas as pd', 's = pd.Series([1.0, None, 3.0])'];
  const cast = 's = s.astype(int)';
  // The crash cell: the cast between two other statements, which every non-fix keeps.
  const cell = (middle: string) => `n = len(s)\n${middle}\nhalf = n / 2`;
  const checks = [
    'def check_whole_numbers():',
    '    """s holds whole numbers (an integer dtype), one per original value"""',
    "    assert s.dtype.kind == 'i', str(s.dtype)",
    '    assert len(s) == 3, len(s)',
    '',
  ].join('\n');
  const fix = 's = s.fillna(0).astype(int)';
  const attempts: [name: string, cells: string[], outcome: string, reason?: RegExp][] = [
    ['the fix', [...base, cell(fix), "print('done')"], 'resolved'],
    [
      'another correct fix',
      [...base, cell('s = pd.Series([int(x) if x == x else 0 for x in s])'), "print('done')"],
      'resolved',
    ],
    [
      'the statement under a guard false at run time',
      [...base, cell(`if len([]) > 0:\n    ${cast}`), "print('done')"],
      'checks-failed',
      /^check_whole_numbers failed: s holds whole numbers \(an integer dtype\), one per original value \(AssertionError: float64\)$/,
    ],
    [
      'the statement in a loop that never runs',
      [...base, cell(`for _ in []:\n    ${cast}`), "print('done')"],
      'checks-failed',
    ],
    [
      'the statement replaced by a print',
      [...base, cell(`print(${JSON.stringify(cast)})`), "print('done')"],
      'checks-failed',
    ],
    [
      'a try/except built in an exec string',
      [...base, cell(`exec("try:\\n    ${cast}\\nexcept Exception:\\n    pass")`), "print('done')"],
      'suppressed',
      /^pandas\.errors\.IntCastingNaNError: Cannot convert non-finite values \(NA or inf\) to integer was raised and swallowed in code cell 2 of the repair \(code cell 2 of the crashing notebook\) \(runtime evidence\)$/,
    ],
    [
      'contextlib.suppress reached through getattr',
      [...base, cell(`with getattr(contextlib, 'suppress')(Exception):\n    ${cast}`), "print('done')"],
      'suppressed',
    ],
    [
      'the library call patched in an earlier cell (the checks would pass)',
      [
        ...base,
        'import pandas.core.generic as g\ncast = g.NDFrame.astype\npd.Series.astype = lambda self, *a, **k: cast(self.fillna(0), *a, **k)',
        cell(cast),
        "print('done')",
      ],
      'invalid',
      /^library attribute pandas\.core\.series\.Series\.astype was replaced by a function defined in the notebook's code/,
    ],
  ];
  let score: RepairScore;

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-score-checks-'));
    await writeTestInstance(dir, {
      id: 'astype',
      reproduced: [...base, cell(cast), "print('done')"],
      fixed: [...base, cell(fix), "print('done')"],
      crash: {
        ename: 'IntCastingNaNError',
        evalue: 'Cannot convert non-finite values (NA or inf) to integer',
        match: 'exact',
        cell: 2,
      },
      requires: ['pandas'],
      checks,
    });
    score = await scoreRepairs(dir, () => attempts.map(([, cells]) => ({ notebook: makeNotebook(cells) })));
  }, 600_000);

  it.each(attempts.map((a, i) => [a[0], a[2], i + 1, a[3]] as const))('%s → %s', (_name, outcome, attempt, reason) => {
    const r = score.results.find((x) => x.attempt === attempt)!;
    expect(r.outcome, r.reason).toBe(outcome);
    expect(r.resolved).toBe(outcome === 'resolved');
    if (reason) expect(r.reason).toMatch(reason);
  });

  it('records every check with its result, and the evidence, in the scorecard', () => {
    const guarded = score.results.find((x) => x.attempt === 3)!;
    expect(guarded.checks).toEqual([
      {
        name: 'check_whole_numbers',
        reason: 's holds whole numbers (an integer dtype), one per original value',
        passed: false,
        error: 'AssertionError: float64',
      },
    ]);
    expect(score.results.find((x) => x.attempt === 1)!.checks).toEqual([
      expect.objectContaining({ name: 'check_whole_numbers', passed: true }),
    ]);
    expect(score.results.find((x) => x.attempt === 6)!.evidence).toEqual([
      expect.objectContaining({ kind: 'swallowed', ename: 'pandas.errors.IntCastingNaNError', cell: 2 }),
    ]);
  });
});

describe('each attempt runs in a folder of its own', () => {
  // Every attempt walks the folder it runs in (and /instance, where the docker
  // runtime mounts it): it fails if it finds another attempt's mark — in a
  // notebook, or in a file another attempt wrote — and leaves its own mark
  // beside the data and in every notebook it can write to (no try/except: a
  // handler would make the repair `suppressed`). The marks are
  // built by concatenation so that the searching code does not match itself.
  const base = ["d = {'cost': 3}"];
  const attempts = [1, 2, 3];
  const spy = (k: number) =>
    [
      'import os, re',
      `own = 'isolation-mark-${k}'`,
      "pattern = re.compile('isolation' + r'-mark-\\d+')",
      'found = set()',
      "for top in ['.', '/instance']:",
      '    for root, _dirs, files in os.walk(top):',
      '        for name in files:',
      '            p = os.path.join(root, name)',
      "            text = open(p, 'rb').read().decode('utf-8', 'replace')",
      '            found |= set(pattern.findall(text))',
      "            if name.endswith('.ipynb') and os.access(p, os.W_OK):",
      "                open(p, 'a').write(own)",
      "open(os.path.join('data', 'seen-' + own + '.txt'), 'w').write(own)",
      'others = sorted(found - {own})',
      "assert not others, f'this attempt sees {others}'",
    ].join('\n');
  let score: RepairScore;
  let folder: string;

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-score-isolation-'));
    folder = await writeTestInstance(dir, {
      id: 'isolation',
      reproduced: [...base, "total = d['price']"],
      fixed: [...base, "total = d['cost']"],
      crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 1 },
      data: { 'input.csv': 'a,b\n1,2\n' },
    });
    score = await scoreRepairs(dir, () =>
      attempts.map((k) => ({ notebook: makeNotebook([...base, "total = d['cost']", spy(k)]) })),
    );
  }, 600_000);

  it.each(attempts)("attempt %i sees no other attempt's notebook or files, and resolves", (attempt) => {
    const r = score.results.find((x) => x.attempt === attempt)!;
    expect(r.reason ?? '').not.toMatch(/sees/);
    expect(r.outcome, r.reason).toBe('resolved');
  });

  it('leaves the instance folder as it was', async () => {
    expect((await readdir(path.join(folder, 'data'))).sort()).toEqual(['input.csv']);
  });
});

describe('repairs of an out-of-order crash run in execution-count order', () => {
  let score: RepairScore;
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-score-order-'));
    await writeTestInstance(dir, {
      id: 'out-of-order',
      order: 'execution-count',
      reproduced: [
        { source: "df = {'a': 1}", count: 1 },
        { source: "print(df['a'])", count: 3 },
        { source: 'del df', count: 2 },
      ],
      fixed: [
        { source: "df = {'a': 1}", count: 1 },
        { source: "print(df['a'])", count: 2 },
        { source: 'del df', count: 3 },
      ],
      crash: { ename: 'NameError', evalue: "name 'df' is not defined", match: 'exact', cell: 1 },
    });
    await writeTestInstance(dir, {
      id: 'needs-missing-module',
      reproduced: ['import numpy_that_does_not_exist', "{}['k']"],
      fixed: ['import numpy_that_does_not_exist', "{'k': 1}['k']"],
      crash: { ename: 'KeyError', evalue: "'k'", match: 'exact', cell: 1 },
      requires: ['numpy_that_does_not_exist'],
    });
    score = await scoreRepairs(dir, (key) =>
      key.instance === 'needs-missing-module'
        ? [{ notebook: key.source.fixed }]
        : [
            { notebook: key.source.fixed },
            { notebook: key.source.reproduced },
            { cells: ["df = {'a': 1}", "print(df['a'])", 'del df'] },
            { notebook: makeNotebook(["df = {'a': 1}", "print(df['a'])", 'del df']) },
          ],
    );
  }, 600_000);

  it.each([
    [1, 'the fixed notebook (counts in file order)', 'resolved'],
    [2, 'the reproduced notebook', 'crashed'],
    [3, 'a list of cells (given counts 1, 2, 3)', 'resolved'],
    [4, 'a notebook without execution counts (nothing runs)', 'not-executed'],
  ])('attempt %i, %s → %s', (attempt, _name, outcome) => {
    const r = score.results.find((x) => x.instance === 'out-of-order' && x.attempt === attempt)!;
    expect(r.outcome, r.reason).toBe(outcome);
  });

  it('excludes a task whose instance cannot run here, never counting it as resolved', () => {
    expect(score.excluded).toEqual([
      expect.objectContaining({
        instance: 'needs-missing-module',
        reason: expect.stringMatching(/numpy_that_does_not_exist not importable/),
      }),
    ]);
    expect(score.results.some((r) => r.instance === 'needs-missing-module')).toBe(false);
    expect(score.scorable).toBe(1);
  });
});

describe('the embedded benchmark', () => {
  it('resolves none of the reproduced notebooks: each crashes with the exception of its instance', async () => {
    const score = await scoreRepairs(path.join(repoRoot, 'raw/instances'), (key) => [
      { notebook: key.source.reproduced },
    ]);
    const { sources } = await readTaskSources(path.join(repoRoot, 'raw/instances'));
    expect(score.tasks).toBe(sources.length);
    // TensorFlow is not in the local Debian stack: its task is excluded, with the reason.
    for (const e of score.excluded) expect(e.reason).toMatch(/not importable/);
    expect(score.scorable + score.excluded.length).toBe(sources.length);
    expect(score.scorable).toBeGreaterThan(0);
    for (const s of sources) {
      const reproduced = score.results.find((r) => r.instance === s.id && r.attempt === 1);
      if (score.excluded.some((e) => e.instance === s.id)) continue;
      expect(reproduced!.resolved, `${s.id} reproduced`).toBe(false);
      expect(reproduced!.outcome, s.id).toBe('crashed');
      expect(reproduced!.error?.ename.split('.').pop(), s.id).toBe(s.instance.crash.ename);
    }
    expect(score.resolved.correct).toBe(0);
    expect(score.passAtK).toEqual([{ k: 1, value: 0 }]);
  }, 900_000);
});
