import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJunoError } from '@junobench/core';
import { readSuggestCases } from './read-suggest-cases.js';

// A small notebook written for this test: cell 1 was never run, so cell 2 crashes on X.
const code = (source: string, count: number | null, outputs: unknown[] = []) => ({
  cell_type: 'code',
  metadata: {},
  source,
  execution_count: count,
  outputs,
});
const notebook = (cells: unknown[]) => JSON.stringify({ nbformat: 4, nbformat_minor: 4, metadata: {}, cells });
const nameError = {
  output_type: 'error',
  ename: 'NameError',
  evalue: "name 'X' is not defined",
  traceback: [
    '\u001b[0;31mNameError\u001b[0m  Traceback (most recent call last)',
    'Cell \u001b[0;32mIn[2], line 1\u001b[0m\n----> 1 model.fit(X, y)\n',
    "\u001b[0;31mNameError\u001b[0m: name 'X' is not defined",
  ],
};
const crashing = notebook([
  code('import pandas as pd\nmodel = Model()', 1),
  code('X, y = load()', null),
  code('model.fit(X, y)', 2, [nameError]),
  code('print(1)', null),
]);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'suggest-cases-'));
  await writeFile(path.join(dir, 'crash.ipynb'), crashing);
  await writeFile(path.join(dir, 'clean.ipynb'), notebook([code('x = 1', 1)]));
  await writeFile(path.join(dir, 'notes.txt'), 'not a crash');
  await mkdir(path.join(dir, 'instances/nb_1'), { recursive: true });
  await writeFile(path.join(dir, 'instances/nb_1/original.ipynb'), crashing);
  await writeFile(path.join(dir, 'instances/nb_1/reproduced.ipynb'), notebook([code('model.fit(X, y)', null)]));
  await writeFile(
    path.join(dir, 'instances/nb_1/instance.json'),
    JSON.stringify({
      id: 'nb_1',
      source: { platform: 'local', datasets: [] },
      crash: { ename: 'NameError', evalue: "name 'X' is not defined", match: 'exact', cell: 0 },
      execution: { order: 'execution-count' },
      requires: ['pandas'],
      labels: { library: 'None', crashType: 'variable not found', rootCause: 'NB specific', pipelineStage: 'training' },
    }),
  );
  const record = {
    id: 'r1',
    notebook: 'a.ipynb',
    source: 'kaggle',
    ename: 'keyerror',
    evalue: "'a'",
    traceback: [],
    columns: {},
    labels: { rootCause: 'misunderstanding of data structure' },
  };
  await writeFile(path.join(dir, 'pool.jsonl'), `${JSON.stringify(record)}\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = (target: string) => readSuggestCases(target, { instancesDir: path.join(dir, 'instances') });

describe('readSuggestCases', () => {
  it('a notebook: each saved error output, with the crashing cell, the cells around it and their execution counts', async () => {
    const [c, ...rest] = await read(path.join(dir, 'crash.ipynb'));
    expect(rest).toEqual([]);
    expect(c).toMatchObject({ id: 'crash.ipynb#cell2', kind: 'notebook', labels: {} });
    expect(c!.input).toMatchObject({
      ename: 'NameError',
      cell: 'model.fit(X, y)',
      executionCount: 2,
      cellsBefore: ['import pandas as pd\nmodel = Model()', 'X, y = load()'],
      executionCountsBefore: [1, null],
      cellsAfter: ['print(1)'],
      imports: ['pandas'],
    });
    expect(c!.input.traceback.join('\n')).toContain('model.fit(X, y)');
  });

  it('an instance id: the collected notebook’s crash, labels from instance.json', async () => {
    const [c] = await read('nb_1');
    expect(c).toMatchObject({ id: 'nb_1', kind: 'instance', labels: { library: 'None', rootCause: 'NB specific' } });
    expect(c!.location).toContain('original.ipynb, code cell 2');
  });

  it('a pool: every record, labels grouped into JunoBench’s vocabularies', async () => {
    const cases = await read(path.join(dir, 'pool.jsonl'));
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({ id: 'r1', kind: 'pool', labels: { rootCause: 'data confusion' } });
  });

  it.each([
    ['a notebook without a saved crash', 'clean.ipynb', 'E_INPUT_EMPTY', /no saved error output/],
    ['an unknown instance id', 'nb_9', 'E_INPUT_NOT_FOUND', /no instance "nb_9"/],
    ['a file of another kind', 'notes.txt', 'E_USAGE', /give a notebook \(\.ipynb\), a pool/],
    ['an id that is no id', '../etc', 'E_USAGE', /not a valid instance id/],
  ])('refuses %s, saying what to give instead', async (_name, target, code, message) => {
    const t = target.includes('.') && !target.startsWith('..') ? path.join(dir, target) : target;
    const err = await read(t).catch((e: unknown) => e);
    expect(isJunoError(err)).toBe(true);
    expect(err).toMatchObject({ code });
    expect((err as Error).message).toMatch(message);
  });
});
