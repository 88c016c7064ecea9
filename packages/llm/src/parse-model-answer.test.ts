import { describe, expect, it } from 'vitest';
import { extractJsonObject, parseModelAnswer } from './parse-model-answer.js';

describe('extractJsonObject', () => {
  it.each([
    ['bare', '{"crashes": true}', { crashes: true }],
    ['bare with spaces', '  \n{"crashes": false}\n', { crashes: false }],
    [
      'fenced json',
      'Sure.\n```json\n{"crashes": true, "exception": "KeyError"}\n```\n',
      { crashes: true, exception: 'KeyError' },
    ],
    ['fenced without language', '```\n{"crashes": false}\n```', { crashes: false }],
    ['the last fenced block', '```json\n{"a": 1}\n```\nOn second thought:\n```json\n{"b": 2}\n```', { b: 2 }],
    [
      'in prose',
      'I think the answer is {"crashes": true, "exception": "ValueError"} because …',
      { crashes: true, exception: 'ValueError' },
    ],
    [
      'a brace inside a string',
      'Answer: {"diagnosis": "a } in text", "library": "numpy"}',
      { diagnosis: 'a } in text', library: 'numpy' },
    ],
    ['nested objects', 'x {"notebook": {"cells": [], "metadata": {}}} y', { notebook: { cells: [], metadata: {} } }],
  ])('%s', (_name, text, expected) => {
    expect(extractJsonObject(text)).toEqual(expected);
  });

  it.each([
    ['prose only', 'The cell will crash with a KeyError.'],
    ['malformed', '{"crashes": tru'],
    ['empty', ''],
  ])('none in %s', (_name, text) => {
    expect(extractJsonObject(text)).toBeUndefined();
  });
});

describe('parseModelAnswer', () => {
  it('keeps the answer keys of the kind and drops the rest', () => {
    expect(parseModelAnswer('detect', 'detect-0', '{"crashes": true, "exception": "KeyError", "why": "…"}')).toEqual({
      answer: { crashes: true, exception: 'KeyError' },
    });
  });

  it.each([
    ['detect', 'no JSON at all', /no JSON object/],
    ['detect', '{"verdict": "crash"}', /none of crashes, cell, exception/],
    ['detect', '{"crashes": "yes"}', /not valid: crashes/],
    ['diagnose', '{"library": "pandas", "crashType": "explosion"}', /not valid: crashType/],
    ['repair', '{"cells": "print(1)"}', /not valid: cells/],
  ] as const)('%s %s is an abstention', (kind, text, why) => {
    const r = parseModelAnswer(kind, `${kind}-0`, text);
    expect('problem' in r && r.problem).toMatch(why);
  });
});
