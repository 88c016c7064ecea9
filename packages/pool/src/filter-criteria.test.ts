import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkSchema, type CrashRecord, type Predicate } from '@junobench/core';
import { compileCriteria, compilePredicate, readField, validateCriteria } from './filter-criteria.js';

const record: CrashRecord = {
  id: 'r1',
  notebook: 'nb.ipynb',
  source: 'kaggle',
  ename: 'KeyError',
  evalue: "'price'",
  traceback: ['Traceback (most recent call last)', "KeyError: 'price'"],
  imports: ['numpy', 'pandas'],
  labels: { library: 'pandas', isMlBug: true },
  columns: {
    nb_source: 1,
    cluster_id: '12',
    label_root_cause: 'nb specific - execution order',
    label_if_ML_bug: 'ML/data science library related (ML imports, error raised by library)',
    'Libs-cause': 'pandas',
    'dotted.name': 'x',
    empty: null,
  },
};

describe('compilePredicate', () => {
  it.each<[string, Predicate, boolean]>([
    ['equals on a record field', { field: 'source', equals: 'kaggle' }, true],
    ['equals is case-sensitive', { field: 'ename', equals: 'keyerror' }, false],
    ['equals with ignoreCase', { field: 'ename', equals: 'keyerror', ignoreCase: true }, true],
    ['a number column equals a numeric string', { field: 'columns.nb_source', equals: '1' }, true],
    ['a numeric-string column equals a number', { field: 'columns.cluster_id', equals: 12 }, true],
    ['equals a boolean label', { field: 'labels.isMlBug', equals: true }, true],
    ['equals null matches an empty cell', { field: 'columns.empty', equals: null }, true],
    ['equals null on a missing field', { field: 'url', equals: null }, true],
    ['in', { field: 'labels.library', in: ['numpy', 'pandas'] }, true],
    ['in (no match)', { field: 'labels.library', in: ['torch'] }, false],
    ['in with ignoreCase', { field: 'columns.Libs-cause', in: ['PANDAS'], ignoreCase: true }, true],
    ['notIn', { field: 'labels.library', notIn: ['torch'] }, true],
    ['notIn on a missing value is true', { field: 'url', notIn: ['x'] }, true],
    ['notIn listing null excludes a missing value', { field: 'url', notIn: [null] }, false],
    ['startsWith', { field: 'columns.label_root_cause', startsWith: 'nb specific' }, true],
    [
      'startsWith with ignoreCase',
      { field: 'columns.label_if_ML_bug', startsWith: 'ml/data science', ignoreCase: true },
      true,
    ],
    ['startsWith on a missing value', { field: 'labels.rootCause', startsWith: '' }, false],
    ['matches', { field: 'evalue', matches: "^'pri" }, true],
    ['matches on arrays: any element', { field: 'traceback', matches: 'KeyError: ' }, true],
    ['equals on arrays: any element', { field: 'imports', equals: 'numpy' }, true],
    ['exists', { field: 'labels.library', exists: true }, true],
    ['exists false on an empty cell', { field: 'columns.empty', exists: false }, true],
    ['exists on a missing column', { field: 'columns.nope', exists: true }, false],
    ['a column name containing a dot', { field: 'columns.dotted.name', equals: 'x' }, true],
    [
      'all',
      {
        all: [
          { field: 'source', equals: 'kaggle' },
          { field: 'ename', equals: 'KeyError' },
        ],
      },
      true,
    ],
    [
      'all (one fails)',
      {
        all: [
          { field: 'source', equals: 'kaggle' },
          { field: 'ename', equals: 'X' },
        ],
      },
      false,
    ],
    [
      'any',
      {
        any: [
          { field: 'source', equals: 'github' },
          { field: 'ename', equals: 'KeyError' },
        ],
      },
      true,
    ],
    ['not', { not: { field: 'source', equals: 'github' } }, true],
  ])('%s', (_name, predicate, expected) => {
    expect(compilePredicate(predicate)(record)).toBe(expected);
  });
});

describe('readField', () => {
  it.each([
    ['ename', 'KeyError'],
    ['labels.library', 'pandas'],
    ['labels.rootCause', undefined],
    ['columns.Libs-cause', 'pandas'],
    ['columns.missing', undefined],
  ])('%s', (field, expected) => {
    expect(readField(record, field)).toEqual(expected);
  });
});

describe('validateCriteria', () => {
  const step = (keep: unknown) => ({
    steps: [
      { name: 'a', keep: { field: 'source', equals: 'kaggle' } },
      { name: 'b', keep: { field: 'ename', equals: 'x' } },
      { name: 'c', keep },
    ],
  });

  it.each<[string, unknown, RegExp]>([
    [
      'a typo in a predicate name',
      step({ any: [{ field: 'columns.label_root_cause', startswith: 'nb' }] }),
      /^steps\[2\]\.keep\.any\[0\]: unknown predicate "startswith" — did you mean "startsWith"\?$/,
    ],
    [
      'an unknown field',
      step({ field: 'sorce', equals: 'kaggle' }),
      /^steps\[2\]\.keep\.field: unknown field "sorce" — did you mean "source"\?$/,
    ],
    ['no test', step({ field: 'source' }), /steps\[2\]\.keep: no test on "source"/],
    ['two tests', step({ field: 'source', equals: 'a', in: ['b'] }), /one test per predicate, found equals and in/],
    [
      'a bad regular expression',
      step({ field: 'ename', matches: '(' }),
      /steps\[2\]\.keep\.matches: invalid regular expression/,
    ],
    ['in that is not a list', step({ field: 'ename', in: 'KeyError' }), /steps\[2\]\.keep\.in: must be a list/],
    [
      'exists that is not a boolean',
      step({ field: 'ename', exists: 'yes' }),
      /steps\[2\]\.keep\.exists: must be true or false/,
    ],
    [
      'a combinator mixed with a field',
      step({ all: [{ field: 'ename', exists: true }], field: 'x' }),
      /"all" must be alone in its object/,
    ],
    ['an empty any', step({ any: [] }), /steps\[2\]\.keep\.any: must be a non-empty list/],
    ['columns without a name', step({ field: 'columns.', exists: true }), /name a column after "columns\."/],
    [
      'both keep and drop',
      { steps: [{ name: 'x', keep: { field: 'ename', exists: true }, drop: { field: 'ename', exists: true } }] },
      /steps\[0\]: has both "keep" and "drop"/,
    ],
    ['neither keep nor drop', { steps: [{ name: 'x' }] }, /steps\[0\]: needs "keep" or "drop"/],
    [
      'a step without a name',
      { steps: [{ keep: { field: 'ename', exists: true } }] },
      /steps\[0\]\.name: every step needs a name/,
    ],
    [
      'a misspelt step property',
      { steps: [{ name: 'x', kep: {} }] },
      /steps\[0\]: unknown property "kep" — did you mean "keep"\?/,
    ],
    ['no steps', { steps: [] }, /^steps: must be a non-empty list/],
    ['not an object', [1], /must be an object/],
    ['an unknown top-level property', { step: [] }, /unknown property "step" — did you mean "steps"\?/],
  ])('points at %s', (_name, criteria, message) => {
    expect(() => validateCriteria(criteria, 'c.json')).toThrow(message);
    try {
      validateCriteria(criteria, 'c.json');
    } catch (e) {
      expect(e).toMatchObject({ code: 'E_CRITERIA', exitCode: 2, location: { file: 'c.json' } });
    }
  });

  it('accepts the shipped criteria (raw/criteria/junobench.json)', async () => {
    const file = fileURLToPath(new URL('../../../raw/criteria/junobench.json', import.meta.url));
    const criteria = validateCriteria(JSON.parse(await readFile(file, 'utf8')), file);
    expect(criteria.steps.map((s) => s.name)).toEqual([
      'Kaggle notebooks only',
      'ML/data-science library related, or notebook-specific',
      'not environment-related',
    ]);
  });

  it.each<[string, unknown, boolean]>([
    ['one test', { field: 'ename', equals: 'E' }, true],
    ['one test with ignoreCase', { field: 'ename', equals: 'e', ignoreCase: true }, true],
    ['no test', { field: 'ename' }, false],
    ['only ignoreCase', { field: 'ename', ignoreCase: true }, false],
    ['two tests', { field: 'ename', equals: 'E', in: ['E'] }, false],
    ['a misspelt test', { field: 'ename', startswith: 'E' }, false],
  ])('the JSON Schema agrees on a predicate with %s', (_name, keep, valid) => {
    expect(checkSchema('filter-criteria', { steps: [{ name: 'x', keep }] }).length === 0).toBe(valid);
  });
});

// Crash sheets are data from the internet, and so may be a criteria file: a
// pattern that backtracks exponentially on a crafted value must not hang the
// filter. `matches` runs on a linear-time engine (RE2, through re2js).
describe('matches is linear-time (ReDoS)', () => {
  const evil = { ...record, evalue: `${'a'.repeat(40)}!` };

  it('^(a+)+$ on 40 "a"s and a "!" finishes (a backtracking engine would run for hours)', async () => {
    // In a child process with a generous watchdog: a backtracking engine blocks
    // the thread, so the test could not even time out in-process.
    const code = `
      import { compilePredicate } from './packages/pool/src/filter-criteria.ts';
      const r = { id: 'r', notebook: 'n', source: 'kaggle', ename: 'E', evalue: ${JSON.stringify(evil.evalue)}, traceback: [], columns: {} };
      for (const p of ['^(a+)+$', '(a|a)*$', '(a|aa)+$', '^(a*)*b', '(\\w+\\s?)*$'])
        process.stdout.write(String(compilePredicate({ field: 'evalue', matches: p })(r)) + ' ');
    `;
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const out = await new Promise<{ stdout: string; error: Error | null }>((resolve) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', code],
        { cwd: root, timeout: 120_000, killSignal: 'SIGKILL' },
        (error, stdout) => resolve({ stdout, error }),
      ),
    );
    expect(out.error, 'the patterns did not finish within 120 s (catastrophic backtracking)').toBeNull();
    // The answers a backtracking engine would give on a short input (an empty match at the end counts).
    expect(out.stdout.trim()).toBe('false true false false true');
  }, 150_000);

  it.each<[string, string, boolean]>([
    ['anchors and classes', '^Key[A-Z]', true],
    ['alternation', 'TypeError|KeyError', true],
    ['a counted repeat', '^[A-Za-z]{3}Error', true],
    ['escapes', '\\bKeyError\\b', true],
    ['non-greedy', "'p.*?e'", true],
    ['named group (translated)', '(?<name>Key)Error', true],
    ['no match', '^ValueError', false],
  ])('behaves like a JavaScript regular expression: %s', (_n, pattern, want) => {
    expect(compilePredicate({ field: 'ename', matches: pattern })({ ...record, ename: "KeyError 'price'" })).toBe(want);
    expect(new RegExp(pattern.replace('(?<name>', '(')).test("KeyError 'price'")).toBe(want);
  });

  it('honours ignoreCase', () => {
    expect(compilePredicate({ field: 'ename', matches: '^keyerror$', ignoreCase: true })(record)).toBe(true);
    expect(compilePredicate({ field: 'ename', matches: '^keyerror$' })(record)).toBe(false);
  });

  it.each([
    ['a backreference', '(a)\\1'],
    ['a lookahead', 'Key(?=Error)'],
    ['a negative lookahead', '^(?!Value)'],
  ])('refuses %s (needs backtracking) naming the step, with the reason', (_n, pattern) => {
    const criteria = { steps: [{ name: 'keep key errors', keep: { field: 'ename', matches: pattern } }] };
    let err: unknown;
    try {
      compileCriteria(criteria, 'c.json');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'E_CRITERIA',
      exitCode: 2,
      location: { file: 'c.json', field: 'steps[0].keep.matches' },
    });
    expect((err as Error).message).toMatch(/^steps\[0\]\.keep\.matches \(step "keep key errors"\): .*linear-time/);
    expect((err as { hint: string }).hint).toMatch(/RE2/);
  });
});
