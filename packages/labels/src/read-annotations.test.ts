import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import {
  parseAdjudications,
  parseAnnotations,
  readAnnotationFolder,
  readAnnotations,
  readAnnotationSets,
} from './read-annotations.js';
import { checkLabelValue } from './check-label.js';

const good = {
  instance: 'pandas_1',
  annotator: 'ann-a',
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
};
const lines = (...values: unknown[]) => values.map((value, i) => ({ value, line: i + 1 }));

function errorOf(fn: () => unknown): JunoError {
  try {
    fn();
  } catch (e) {
    if (e instanceof JunoError) return e;
    throw e;
  }
  throw new Error('expected a JunoError');
}

describe('checkLabelValue', () => {
  it.each([
    { dimension: 'rootCause', value: 'API Misuse', suggestion: 'API misuse' },
    { dimension: 'crashType', value: 'tensor-shape mismatch', suggestion: 'tensor shape mismatch' },
    { dimension: 'crashType', value: 'KeyError', suggestion: 'key error' },
    { dimension: 'pipelineStage', value: 'data prep', suggestion: undefined },
    { dimension: 'pipelineStage', value: 'Training', suggestion: 'training' },
    { dimension: 'library', value: 'tensorflow', suggestion: 'tensorflow/keras' },
    { dimension: 'library', value: 'keras', suggestion: 'tensorflow/keras' },
    { dimension: 'library', value: 'NBspecific', suggestion: 'None' },
    { dimension: 'library', value: 'scikit-learn', suggestion: 'sklearn' },
  ] as const)('$dimension "$value" → did you mean "$suggestion"', ({ dimension, value, suggestion }) => {
    const message = checkLabelValue(dimension, value)!;
    expect(message).toContain(`"${value}" is not a`);
    expect(message).toContain('allowed: ');
    if (suggestion) expect(message).toContain(`did you mean "${suggestion}"?`);
    else expect(message).not.toContain('did you mean');
  });

  it.each([
    ['library', 'tensorflow/keras'],
    ['library', 'None'],
    ['crashType', 'tensor shape mismatch'],
    ['rootCause', 'NB specific'],
    ['pipelineStage', 'evaluation/prediction'],
  ] as const)('accepts %s "%s"', (dimension, value) => {
    expect(checkLabelValue(dimension, value)).toBeUndefined();
  });
});

describe('parseAnnotations', () => {
  it('returns the set with its annotator', () => {
    const set = parseAnnotations(lines(good, { ...good, instance: 'pandas_2', diagnosis: 'why' }), 'a.jsonl');
    expect(set.annotator).toBe('ann-a');
    expect(set.annotations).toHaveLength(2);
  });

  it.each([
    {
      name: 'near-miss root cause',
      line: { ...good, rootCause: 'API Misuse' },
      field: 'rootCause',
      text: 'did you mean "API misuse"?',
      code: 'E_LABELS',
    },
    {
      name: 'near-miss crash type',
      line: { ...good, crashType: 'tensor-shape mismatch' },
      field: 'crashType',
      text: 'did you mean "tensor shape mismatch"?',
      code: 'E_LABELS',
    },
    {
      name: 'library alias',
      line: { ...good, library: 'keras' },
      field: 'library',
      text: 'did you mean "tensorflow/keras"?',
      code: 'E_LABELS',
    },
    {
      name: 'missing field',
      line: { ...good, pipelineStage: undefined },
      field: undefined,
      text: 'missing required property "pipelineStage"',
      code: 'E_SCHEMA',
    },
    {
      name: 'unknown field',
      line: { ...good, confidence: 3 },
      field: undefined,
      text: 'unknown property "confidence"',
      code: 'E_SCHEMA',
    },
    {
      name: 'wrong type',
      line: { ...good, crashType: 3 },
      field: 'crashType',
      text: 'must be string',
      code: 'E_SCHEMA',
    },
  ])('$name → $code naming file, line and field', ({ line, field, text, code }) => {
    const e = errorOf(() => parseAnnotations(lines(good, line), 'ann.jsonl'));
    expect(e.code).toBe(code);
    expect(e.location).toMatchObject({ file: 'ann.jsonl', line: 2 });
    if (field) expect(e.location?.field).toBe(field);
    expect(e.message).toContain(text);
    expect(e.describe()).toContain('ann.jsonl, line 2');
    expect(e.exitCode).toBe(2);
  });

  it('lists every problem in the file, not only the first', () => {
    const e = errorOf(() =>
      parseAnnotations(
        lines(
          { ...good, rootCause: 'API Misuse' },
          { ...good, instance: 'x', crashType: 'tensor-shape mismatch', pipelineStage: 'Training' },
        ),
        'f.jsonl',
      ),
    );
    expect(e.message).toContain('and 2 more problems');
    expect(e.message).toContain('line 2, field "crashType"');
    expect(e.message).toContain('line 2, field "pipelineStage"');
    expect(e.message).toContain('did you mean "training"?');
  });

  it('rejects two annotators in one file and twice the same instance', () => {
    const e = errorOf(() =>
      parseAnnotations(lines(good, { ...good, instance: 'b', annotator: 'ann-b' }, good), 'f.jsonl'),
    );
    expect(e.message).toContain('annotator "ann-b" differs from "ann-a" on line 1');
    expect(e.message).toContain('instance "pandas_1" is annotated twice (also on line 1)');
  });

  it('rejects an empty file', () => {
    expect(errorOf(() => parseAnnotations([], 'empty.jsonl')).code).toBe('E_INPUT_EMPTY');
  });
});

describe('parseAdjudications', () => {
  it('accepts partial lines and full annotation-shaped lines', () => {
    const adj = parseAdjudications(
      lines({ instance: 'a', crashType: 'value error', note: 'evalue says so' }, { ...good, annotator: 'adjudicated' }),
      'adj.jsonl',
    );
    expect(adj.map((x) => [x.instance, x.line])).toEqual([
      ['a', 1],
      ['pandas_1', 2],
    ]);
  });

  it.each([
    { name: 'no label at all', line: { instance: 'a', note: 'hm' }, text: 'gives no label' },
    { name: 'only the instance', line: { instance: 'a' }, text: 'must NOT have fewer than 2 properties' },
    { name: 'near miss', line: { instance: 'a', rootCause: 'data-confusion' }, text: 'did you mean "data confusion"?' },
    { name: 'unknown field', line: { instance: 'a', rootcause: 'API misuse' }, text: 'unknown property "rootcause"' },
  ])('$name', ({ line, text }) => {
    expect(errorOf(() => parseAdjudications(lines(line), 'adj.jsonl')).message).toContain(text);
  });

  it('rejects two lines for one instance', () => {
    expect(
      errorOf(() =>
        parseAdjudications(
          lines({ instance: 'a', crashType: 'value error' }, { instance: 'a', rootCause: 'API misuse' }),
          'adj.jsonl',
        ),
      ).message,
    ).toContain('adjudicated twice');
  });
});

describe('reading files and folders', () => {
  let dir: string;
  const jsonl = (...values: object[]) => values.map((v) => JSON.stringify(v)).join('\n') + '\n';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'labels-read-'));
    await writeFile(path.join(dir, 'b.jsonl'), jsonl({ ...good, annotator: 'bob' }));
    await writeFile(
      path.join(dir, 'a.jsonl'),
      jsonl({ ...good, annotator: 'alice' }, { ...good, instance: 'numpy_1', annotator: 'alice' }),
    );
    await writeFile(path.join(dir, 'adjudicated.jsonl'), jsonl({ instance: 'pandas_1', crashType: 'value error' }));
    await writeFile(path.join(dir, 'notes.txt'), 'not annotations');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('readAnnotationSets reads every annotator file in name order and skips adjudicated.jsonl', async () => {
    const sets = await readAnnotationSets(dir);
    expect(sets.map((s) => [s.annotator, s.annotations.length])).toEqual([
      ['alice', 2],
      ['bob', 1],
    ]);
    expect(sets[0]!.file).toBe(path.join(dir, 'a.jsonl'));
  });

  it('readAnnotationFolder also returns the adjudications', async () => {
    const { sets, adjudications } = await readAnnotationFolder(dir);
    expect(sets).toHaveLength(2);
    expect(adjudications).toEqual([
      { instance: 'pandas_1', crashType: 'value error', file: path.join(dir, 'adjudicated.jsonl'), line: 1 },
    ]);
  });

  it('readAnnotations reports a missing file and a bad JSON line with its line number', async () => {
    await expect(readAnnotations(path.join(dir, 'nope.jsonl'))).rejects.toMatchObject({ code: 'E_INPUT_NOT_FOUND' });
    const bad = path.join(dir, 'bad.jsonl.txt');
    await writeFile(bad, `${JSON.stringify(good)}\n{"instance": \n`);
    await expect(readAnnotations(bad)).rejects.toMatchObject({
      code: 'E_INPUT_FORMAT',
      location: { file: bad, line: 2 },
    });
  });

  it('two files with the same annotator are an error', async () => {
    const twin = await mkdtemp(path.join(tmpdir(), 'labels-twin-'));
    await writeFile(path.join(twin, 'x.jsonl'), jsonl(good));
    await writeFile(path.join(twin, 'y.jsonl'), jsonl({ ...good, instance: 'other' }));
    await expect(readAnnotationSets(twin)).rejects.toMatchObject({
      code: 'E_LABELS',
      message: expect.stringContaining('appears in two files'),
    });
    await rm(twin, { recursive: true, force: true });
  });

  it('a missing folder is E_INPUT_NOT_FOUND', async () => {
    await expect(readAnnotationSets(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'E_INPUT_NOT_FOUND' });
  });
});
