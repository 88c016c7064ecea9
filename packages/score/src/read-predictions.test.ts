import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskKey } from './plan-tasks.js';
import { parsePredictionLines, predictionProblemsError, readPredictions } from './read-predictions.js';

const D = 'detect-0000000000000001';
const G = 'diagnose-0000000000000002';
const R = 'repair-0000000000000003';
const keys = new Map<string, TaskKey>([
  [
    D,
    {
      kind: 'detect',
      id: D,
      instance: 'a',
      version: 'reproduced',
      crashes: true,
      exception: 'KeyError',
      cell: 3,
      target: 3,
    },
  ],
  [
    G,
    {
      kind: 'diagnose',
      id: G,
      instance: 'a',
      labels: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'training' },
    },
  ],
  [R, { kind: 'repair', id: R, instance: 'a' } as unknown as TaskKey],
]);
const nb = { nbformat: 4, nbformat_minor: 4, metadata: {}, cells: [] };

describe('parsePredictionLines', () => {
  it.each([
    ['not JSON', '{"task": "detect", ', /^invalid JSON/],
    ['no answer', JSON.stringify({ task: 'detect', id: D }), /is missing required property "answer"/],
    [
      'a detect answer without crashes',
      JSON.stringify({ task: 'detect', id: D, answer: { exception: 'KeyError' } }),
      /answer is missing required property "crashes"/,
    ],
    [
      'a label outside the vocabulary',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'Pandas' } }),
      /^not a valid prediction: answer\.library is "Pandas", which is not in the library vocabulary \(did you mean "pandas"\?\); the task's vocabularies\.library and its prompt list the labels$/,
    ],
    [
      'a crash type written as the exception',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'pandas', crashType: 'KeyError' } }),
      /answer\.crashType is "KeyError", which is not in the crashType vocabulary \(did you mean "key error"\?\)/,
    ],
    [
      'half of a two-name library',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'keras' } }),
      /answer\.library is "keras", .*\(did you mean "tensorflow\/keras"\?\)/,
    ],
    [
      'a label like none of the vocabulary',
      JSON.stringify({ task: 'diagnose', id: G, answer: { rootCause: 'bad luck' } }),
      /answer\.rootCause is "bad luck", which is not in the rootCause vocabulary; the task's vocabularies\.rootCause/,
    ],
    [
      'a package name for a library',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'scikit-learn' } }),
      /answer\.library is "scikit-learn", .*\(did you mean "sklearn"\?\)/,
    ],
    [
      'PyTorch',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'PyTorch' } }),
      /\(did you mean "torch"\?\)/,
    ],
    [
      'a module path for a library',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'sklearn.preprocessing' } }),
      /\(did you mean "sklearn"\?\)/,
    ],
    [
      'a canonical library misspelt (a package name a letter or two away)',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'pandsa' } }),
      /^not a valid prediction: answer\.library is "pandsa", which is not a canonical library \(did you mean "pandas"\?\)/,
    ],
    [
      'another spelling of a canonical library',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'keras' } }),
      /answer\.library is "keras", which is not in the library vocabulary \(did you mean "tensorflow\/keras"\?\)/,
    ],
    [
      'a null library (not "None")',
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: null } }),
      /^not a valid prediction: answer\.library is null: give one label of the library vocabulary \("None" when no library caused the crash\), or leave library out \(counted wrong\)$/,
    ],
    [
      'a null crash type',
      JSON.stringify({ task: 'diagnose', id: G, answer: { crashType: null } }),
      /answer\.crashType is null: give one label of the crashType vocabulary, or leave crashType out/,
    ],
    [
      'a misspelt dimension',
      JSON.stringify({ task: 'diagnose', id: G, answer: { crash_tipe: 'key error' } }),
      /unknown property "crash_tipe"/,
    ],
    [
      'dimensions in snake_case, as a Python tool names them',
      JSON.stringify({
        task: 'diagnose',
        id: G,
        answer: {
          library: 'pandas',
          crash_type: 'key error',
          root_cause: 'API misuse',
          pipeline_stage: 'data preparation',
        },
      }),
      /^not a valid prediction: answer fields "crash_type", "root_cause", "pipeline_stage" are not known \(did you mean "crashType", "rootCause", "pipelineStage"\?\); a diagnose answer's fields are library, crashType, rootCause, pipelineStage, diagnosis$/,
    ],
    [
      'a detect field in another case',
      JSON.stringify({ task: 'detect', id: D, answer: { Crashes: true } }),
      /answer field "Crashes" is not known \(did you mean "crashes"\?\)/,
    ],
    [
      'a repair with both forms',
      JSON.stringify({ task: 'repair', id: R, answer: { notebook: nb, cells: ['x'] } }),
      /^not a valid prediction: answer has both "notebook" and "cells": a repair answer is exactly one of \{"notebook": <the repaired notebook's JSON>\} or \{"cells": \["<code of code cell 1>", …\]\}$/,
    ],
    [
      'a detect-shaped answer on a repair task',
      JSON.stringify({ task: 'repair', id: R, answer: { crashes: true, cell: 4, exception: 'KeyError' } }),
      /^not a valid prediction: answer has the fields "crashes", "cell", "exception" \(a detect answer\?\): a repair answer is exactly one of \{"notebook": /,
    ],
    [
      'an empty repair answer',
      JSON.stringify({ task: 'repair', id: R, answer: {} }),
      /^not a valid prediction: answer has no field: a repair answer is exactly one of/,
    ],
    [
      'a notebook given by its path',
      JSON.stringify({ task: 'repair', id: R, answer: { notebook: 'work/x/notebook.ipynb' } }),
      /^not a valid prediction: answer\.notebook is a string: give the notebook's JSON object itself \(nbformat 4, as read from its \.ipynb file\), not its path or its text$/,
    ],
    [
      'cells given as one string',
      JSON.stringify({ task: 'repair', id: R, answer: { cells: 'import pandas as pd' } }),
      /^not a valid prediction: answer\.cells is a string: give a list of the code cells' code, e\.g\. \{"cells": \["import pandas as pd", /,
    ],
    [
      'a cell that is not code',
      JSON.stringify({ task: 'repair', id: R, answer: { cells: ['x = 1', { source: 'y = 2' }] } }),
      /^not a valid prediction: answer\.cells\[1\] is an object: each cell is its code, a string or a list of lines \(strings\)$/,
    ],
    ['attempt 0', JSON.stringify({ task: 'detect', id: D, attempt: 0, answer: { crashes: true } }), /attempt/],
    [
      'an unknown task',
      JSON.stringify({ task: 'detect', id: 'detect-ffffffffffffffff', answer: { crashes: true } }),
      /unknown task "detect-ffffffffffffffff"/,
    ],
    [
      'the wrong kind',
      JSON.stringify({ task: 'diagnose', id: D, answer: {} }),
      /is a detect task, but the line says "task": "diagnose"/,
    ],
  ])('%s is reported with its line number', (_name, text, message) => {
    const { predictions, problems } = parsePredictionLines([{ line: 7, text }], keys);
    expect(predictions).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.line).toBe(7);
    expect(problems[0]!.message).toMatch(message);
  });

  it('accepts a library outside the canonical list by its package name (a label may name one: keras_nlp)', () => {
    const text = JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'keras_nlp', crashType: 'key error' } });
    const { predictions, problems } = parsePredictionLines([{ line: 1, text }], keys);
    expect(problems).toEqual([]);
    expect(predictions).toHaveLength(1);
  });

  it("accepts repair cells as strings or as lists of lines (nbformat's form of `source`, as the task notebooks write it)", () => {
    const text = JSON.stringify({
      task: 'repair',
      id: R,
      answer: { cells: ['import pandas as pd', ['df = pd.DataFrame()\n', 'df.head()']] },
    });
    const { predictions, problems } = parsePredictionLines([{ line: 1, text }], keys);
    expect(problems).toEqual([]);
    expect(predictions).toHaveLength(1);
  });

  it('keeps the kind and attempt of each problem line that names them, so that a left-out line is a missing answer of its attempt', () => {
    const { problemAttempts } = parsePredictionLines(
      [
        { line: 1, text: JSON.stringify({ task: 'repair', id: R, attempt: 3, answer: { cells: [1] } }) },
        { line: 2, text: JSON.stringify({ task: 'detect', id: D, answer: { crashes: 'yes' } }) },
        { line: 3, text: JSON.stringify({ task: 'detect', id: D, attempt: 'two', answer: { crashes: true } }) },
        { line: 4, text: JSON.stringify({ task: 'guess', id: D, attempt: 2, answer: {} }) },
        { line: 5, text: '{"task": "detect", ' },
      ],
      keys,
    );
    expect(problemAttempts).toEqual([
      {
        task: 'repair',
        attempt: 3,
        line: 1,
        id: R,
        message: expect.stringMatching(/^not a valid prediction: answer\.cells\[0\]/),
      },
      { task: 'detect', attempt: 1, line: 2, id: D, message: expect.stringMatching(/answer\.crashes must be boolean/) },
    ]);
  });

  it('accepts a detect answer of a fixed shape, with null for the cell and the exception it does not name', () => {
    const text = JSON.stringify({ task: 'detect', id: D, answer: { crashes: false, cell: null, exception: null } });
    expect(parsePredictionLines([{ line: 1, text }], keys).problems).toEqual([]);
  });

  it('keeps good lines, numbers attempts from 1, skips blank lines and reports duplicates', () => {
    const lines = [
      JSON.stringify({ task: 'detect', id: D, answer: { crashes: true } }),
      '',
      JSON.stringify({ task: 'detect', id: D, attempt: 2, answer: { crashes: false } }),
      JSON.stringify({ task: 'detect', id: D, attempt: 1, answer: { crashes: false } }),
      JSON.stringify({ task: 'repair', id: R, answer: { cells: ['x = 1'] } }),
    ].map((text, i) => ({ line: i + 1, text }));
    const r = parsePredictionLines(lines, keys);
    expect(r.lines).toBe(4);
    expect(r.predictions.map((p) => [p.line, p.id, p.attempt])).toEqual([
      [1, D, 1],
      [3, D, 2],
      [5, R, 1],
    ]);
    expect(r.problems).toEqual([
      {
        line: 4,
        message: `a second answer for task "${D}" attempt 1 (the first is on line 1); number the attempts 1, 2, …`,
      },
    ]);
  });

  it('reads a file, and the error for problems names the file and the first line', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-pred-'));
    const file = path.join(dir, 'p.jsonl');
    await writeFile(file, `${JSON.stringify({ task: 'detect', id: D, answer: { crashes: true } })}\nnot json\n`);
    const r = await readPredictions(file, keys);
    expect(r.problems.map((p) => p.line)).toEqual([2]);
    const e = predictionProblemsError(file, r.problems);
    expect(e.exitCode).toBe(2);
    expect(e.describe()).toMatch(/p\.jsonl, line 2: 1 prediction line cannot be scored:\n {2}line 2: invalid JSON/);
    expect(e.describe()).toMatch(/--lenient/);
  });

  it('reads a file written with a byte-order mark and CRLF line ends (PowerShell, Notepad)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-pred-'));
    const file = path.join(dir, 'p.jsonl');
    const lines = [
      JSON.stringify({ task: 'detect', id: D, answer: { crashes: true } }),
      JSON.stringify({ task: 'diagnose', id: G, answer: { library: 'pandas' } }),
    ];
    await writeFile(file, `\uFEFF${lines.join('\r\n')}\r\n`);
    const r = await readPredictions(file, keys);
    expect(r.problems).toEqual([]);
    expect(r.predictions.map((p) => [p.line, p.id])).toEqual([
      [1, D],
      [2, G],
    ]);
  });

  it('a file none of whose ids is a task being scored points at --tasks, --seed and --instances', () => {
    const other = (n: number) =>
      JSON.stringify({ task: 'detect', id: `detect-${String(n).padStart(16, 'a')}`, answer: { crashes: true } });
    const all = parsePredictionLines(
      [other(1), other(2)].map((text, i) => ({ line: i + 1, text })),
      keys,
    );
    expect(predictionProblemsError('p.jsonl', all.problems, all.lines).hint).toBe(
      'no line names a task being scored: pass the tasks file the tool answered (--tasks <tasks.jsonl>) and the --seed and --instances it was exported with',
    );
    const some = parsePredictionLines(
      [other(1), JSON.stringify({ task: 'detect', id: D, answer: { crashes: true } })].map((text, i) => ({
        line: i + 1,
        text,
      })),
      keys,
    );
    expect(predictionProblemsError('p.jsonl', some.problems, some.lines).hint).toMatch(/--lenient/);
  });

  it('a line longer than the cap is a problem of its own, and the lines after it are still read', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-pred-'));
    const file = path.join(dir, 'p.jsonl');
    const good = JSON.stringify({ task: 'detect', id: D, answer: { crashes: true } });
    await writeFile(
      file,
      `${JSON.stringify({ task: 'detect', id: 'x'.repeat(500), answer: { crashes: true } })}\n${good}\n`,
    );
    const r = await readPredictions(file, keys, { maxLineChars: 200 });
    expect(r.lines).toBe(2);
    expect(r.problems).toEqual([
      { line: 1, message: 'a line of 551 characters, longer than the 200 a prediction line may be' },
    ]);
    expect(r.predictions.map((p) => p.line)).toEqual([2]);
  });

  it('a prediction nested thousands of levels deep is a problem line, not a stack overflow', () => {
    // Written as text: JSON.stringify itself would overflow on it.
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const text = JSON.stringify({
      task: 'repair',
      id: R,
      answer: { notebook: { ...nb, metadata: { deep: 'DEEP' } } },
    }).replace('"DEEP"', deep);
    const { predictions, problems } = parsePredictionLines([{ line: 3, text }], keys);
    expect(predictions).toEqual([]);
    expect(problems).toEqual([
      {
        line: 3,
        message:
          'nested 101 levels deep at "answer.notebook.metadata.deep.a.a.….a", more than the 100 a prediction may nest',
      },
    ]);
  });

  it('quotes a hostile id short in its message', () => {
    const id = 'A'.repeat(5_000_000);
    const { problems } = parsePredictionLines(
      [{ line: 1, text: JSON.stringify({ task: 'detect', id, answer: { crashes: true } }) }],
      keys,
    );
    expect(problems[0]!.message.length).toBeLessThan(300);
    expect(problems[0]!.message).toMatch(/^unknown task "A{120}…" \(5000000 characters\): none of the tasks/);
  });
});
