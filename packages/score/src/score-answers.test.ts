import { describe, expect, it } from 'vitest';
import type { Labels } from '@junobench/core';
import type { RepairVerdict } from './check-repair.js';
import type { DetectKey, DiagnoseKey, RepairKey } from './plan-tasks.js';
import type { Answer, ParsedPrediction } from './read-predictions.js';
import { planAttempts, repairSlot, scoreDetect, scoreDiagnose, scoreRepair } from './score-answers.js';

const det = (id: string, crashes: boolean, target: number, exception?: string): DetectKey => ({
  kind: 'detect',
  id,
  instance: `i-${id}`,
  version: crashes ? 'reproduced' : 'fixed',
  crashes,
  ...(exception ? { exception } : {}),
  cell: crashes ? target : null,
  target,
});
let line = 0;
const pred = (task: ParsedPrediction['task'], id: string, attempt: number, answer: Answer): ParsedPrediction => ({
  line: ++line,
  task,
  id,
  attempt,
  answer,
});

describe('scoreDetect', () => {
  const keys = [
    det('t1', true, 3, 'KeyError'),
    det('t2', false, 2),
    det('t3', true, 1, 'NameError'),
    det('t4', false, 4),
  ];
  const predictions = [
    pred('detect', 't1', 1, { crashes: true, exception: 'KeyError' }),
    pred('detect', 't2', 1, { crashes: true }),
    pred('detect', 't3', 1, { crashes: true, exception: 'builtins.NameError' }),
    // t4 attempt 1 missing: wrong
    pred('detect', 't1', 2, { crashes: false }),
    pred('detect', 't2', 2, { crashes: false }),
    pred('detect', 't3', 2, { crashes: true, exception: 'ValueError', cell: 1 }),
    pred('detect', 't4', 2, { crashes: false }),
    pred('detect', 't1', 3, { crashes: true, exception: 'KeyError', cell: 2 }),
    pred('detect', 't2', 3, { crashes: false }),
    // t3 attempt 3 missing
    pred('detect', 't4', 3, { crashes: false }),
  ];
  const s = scoreDetect(keys, predictions);

  it('scores every attempt singly (missing = wrong), pooled', () => {
    expect(s.attempts).toBe(3);
    expect(s.single.crash).toEqual({ correct: 8, total: 12, value: 8 / 12 });
    expect(s.single.cell).toEqual({ correct: 7, total: 12, value: 7 / 12 });
    // the exception counts on the crashing tasks only; module prefixes are ignored
    expect(s.single.exception).toEqual({ correct: 3, total: 6, value: 0.5 });
  });

  it('scores the majority vote per field (ties: the earliest attempt)', () => {
    expect(s.majority.crash).toEqual({ correct: 4, total: 4, value: 1 });
    expect(s.majority.cell).toEqual({ correct: 4, total: 4, value: 1 });
    expect(s.majority.exception).toEqual({ correct: 2, total: 2, value: 1 });
    expect(s.confusion).toEqual({ truePositive: 2, falsePositive: 0, trueNegative: 2, falseNegative: 0, missing: 0 });
    expect(s.results.find((r) => r.task === 't1')!.predicted).toEqual({
      crashes: true,
      cell: 3,
      exception: 'KeyError',
    });
  });

  it('scores an exception answered as Python prints it (class: message) by its class', () => {
    // A tool that reports the error line as Python prints it was scored wrong: only module prefixes were stripped,
    // and "KeyError: 'a.b'" became "b'".
    const k = [det('k1', true, 2, 'KeyError'), det('k2', true, 2, 'ParserError'), det('k3', true, 2, 'KeyError')];
    const v = scoreDetect(k, [
      pred('detect', 'k1', 1, { crashes: true, exception: "KeyError: 'a.b'" }),
      pred('detect', 'k2', 1, {
        crashes: true,
        exception: 'pandas.errors.ParserError: Error tokenizing data. C error: Expected 3 fields',
      }),
      pred('detect', 'k3', 1, { crashes: true, exception: "raises KeyError: 'x'" }),
    ]);
    expect(v.results.map((r) => r.predicted.exception)).toEqual(['KeyError', 'ParserError', "raises KeyError: 'x'"]);
    expect(v.single.exception).toEqual({ correct: 2, total: 3, value: 2 / 3 });
  });

  it('counts the attempts of lines left out (--lenient) as missing answers, not as fewer attempts', () => {
    // Every attempt-3 line was invalid and left out: scored as 2 attempts, "3 attempts, the third missing" read 4/4.
    const k = [det('m1', true, 2, 'KeyError'), det('m2', false, 2)];
    const p = [
      pred('detect', 'm1', 1, { crashes: true }),
      pred('detect', 'm2', 1, { crashes: false }),
      pred('detect', 'm1', 2, { crashes: true }),
      pred('detect', 'm2', 2, { crashes: false }),
    ];
    const v = scoreDetect(k, p, [3, 3]);
    expect(v.attempts).toBe(3);
    expect(v.single.crash).toEqual({ correct: 4, total: 6, value: 4 / 6 });
    expect(scoreDiagnose([], [], [1, 2]).attempts).toBe(2);
    expect(planAttempts(p, [3, 1])).toEqual([1, 2, 3]);
  });

  it('a null exception names none', () => {
    const v = scoreDetect(
      [det('n1', false, 2), det('n2', true, 2, 'KeyError')],
      [
        pred('detect', 'n1', 1, { crashes: false, cell: null, exception: null }),
        pred('detect', 'n2', 1, { crashes: true, exception: null }),
      ],
    );
    expect(v.results.map((r) => r.predicted)).toEqual([
      { crashes: false, cell: null, exception: null },
      { crashes: true, cell: 2, exception: null },
    ]);
    expect([v.single.crash.correct, v.single.exception.correct]).toEqual([2, 0]);
  });

  it('a missing attempt abstains from the vote: the answers given decide, in any attempt order', () => {
    const k = [det('v1', true, 2, 'KeyError')];
    for (const order of [
      [1, 2],
      [2, 1],
    ]) {
      const v = scoreDetect(k, [
        pred('detect', 'v1', order[0]!, { crashes: true, exception: 'KeyError' }),
        pred('detect', 'v2', order[1]!, { crashes: false }),
      ]);
      expect(v.attempts).toBe(2);
      expect(v.majority.crash).toEqual({ correct: 1, total: 1, value: 1 });
      expect(v.results[0]!.predicted).toEqual({ crashes: true, cell: 2, exception: 'KeyError' });
      // singly, the missing attempt is still wrong
      expect(v.single.crash).toEqual({ correct: 1, total: 2, value: 0.5 });
    }
    // no attempt at all: no answer, wrong
    const none = scoreDetect(k, [pred('detect', 'v2', 1, { crashes: true })]);
    expect(none.majority.crash.correct).toBe(0);
    expect(none.confusion.missing).toBe(1);
  });

  it('votes the cell and the exception of a "crashes" majority among the attempts that say it crashes', () => {
    // 3 of 5 attempts say it crashes (KeyError twice); the two no-crash attempts come first. Voted over all five,
    // null (2) tied KeyError (2) and won as the earlier: a "crashes" majority with no exception.
    const k = [det('t1', true, 3, 'KeyError')];
    const five = [
      pred('detect', 't1', 1, { crashes: false }),
      pred('detect', 't1', 2, { crashes: false }),
      pred('detect', 't1', 3, { crashes: true, exception: 'KeyError' }),
      pred('detect', 't1', 4, { crashes: true, exception: 'ValueError', cell: 2 }),
      pred('detect', 't1', 5, { crashes: true, exception: 'KeyError' }),
    ];
    const v = scoreDetect(k, five);
    expect(v.results[0]!.predicted).toEqual({ crashes: true, cell: 3, exception: 'KeyError' });
    expect(v.majority).toEqual({
      crash: { correct: 1, total: 1, value: 1 },
      cell: { correct: 1, total: 1, value: 1 },
      exception: { correct: 1, total: 1, value: 1 },
    });
    // A "no crash" majority answers no cell and no exception, whatever a minority said.
    const no = scoreDetect(
      [det('t2', false, 2)],
      [
        pred('detect', 't2', 1, { crashes: false, cell: 1 }),
        pred('detect', 't2', 2, { crashes: false }),
        pred('detect', 't2', 3, { crashes: true, exception: 'KeyError' }),
      ],
    );
    expect(no.results[0]!.predicted).toEqual({ crashes: false, cell: null, exception: null });
    expect(no.majority.cell.correct).toBe(1);
  });

  it('always answering "crashes" scores 50% on balanced tasks; no predictions score 0', () => {
    const always = keys.map((k) => pred('detect', k.id, 1, { crashes: true }));
    expect(scoreDetect(keys, always).single.crash.value).toBe(0.5);
    const none = scoreDetect(keys, []);
    expect(none.single.crash).toEqual({ correct: 0, total: 4, value: 0 });
    expect(none.confusion.missing).toBe(4);
  });
});

const diag = (
  id: string,
  library: string,
  crashType: string,
  rootCause: string,
  pipelineStage: string,
): DiagnoseKey => ({
  kind: 'diagnose',
  id,
  instance: `i-${id}`,
  labels: { library, crashType, rootCause, pipelineStage } as Labels,
});

describe('scoreDiagnose', () => {
  const keys = [
    diag('g1', 'pandas', 'key error', 'API misuse', 'data preparation'),
    diag('g2', 'numpy', 'index error', 'data confusion', 'training'),
    diag('g3', 'None', 'variable not found', 'NB specific', 'training'),
  ];
  const predictions = [
    pred('diagnose', 'g1', 1, {
      library: 'pandas',
      crashType: 'key error',
      rootCause: 'API misuse',
      pipelineStage: 'training',
    }),
    pred('diagnose', 'g2', 1, { library: 'numpy', crashType: 'value error' }),
    pred('diagnose', 'g1', 2, { library: 'pandas' }),
    pred('diagnose', 'g2', 2, { library: 'sklearn', rootCause: 'data confusion', pipelineStage: 'training' }),
    pred('diagnose', 'g3', 2, {
      library: 'None',
      crashType: 'variable not found',
      rootCause: 'NB specific',
      pipelineStage: 'training',
    }),
  ];
  const s = scoreDiagnose(keys, predictions);

  it('accuracy and macro-F1 per dimension, singly (a missing dimension is wrong)', () => {
    const lib = s.dimensions.library;
    expect(lib.single.accuracy).toEqual({ correct: 4, total: 6, value: 4 / 6 });
    // attempt 1: pandas 1, numpy 1, None 0 → 2/3; attempt 2: pandas 1, numpy 0, None 1, sklearn 0 → 1/2
    expect(lib.single.macroF1).toBeCloseTo((2 / 3 + 1 / 2) / 2, 12);
    expect(s.dimensions.crashType.single.accuracy).toEqual({ correct: 2, total: 6, value: 2 / 6 });
  });

  it('majority vote per dimension, with a table per library', () => {
    // A missing attempt (or a dimension left out) abstains: g3 library [missing, None] is None. It was a tie won by
    // attempt 1's "no answer", so the same answers scored differently by attempt order ([None, missing] was right).
    expect(s.dimensions.library.majority.accuracy).toEqual({ correct: 3, total: 3, value: 1 });
    // g1 [training, —] wrong; g2 [—, training] and g3 [missing, training] right
    expect(s.dimensions.pipelineStage.majority.accuracy.correct).toBe(2);
    expect(s.perLibrary.map((r) => [r.library, r.tasks, r.accuracy.library.correct])).toEqual([
      ['None', 1, 1],
      ['numpy', 1, 1],
      ['pandas', 1, 1],
    ]);
    expect(s.results[0]).toEqual({
      task: 'g1',
      instance: 'i-g1',
      truth: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'data preparation' },
      predicted: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'training' },
    });
  });
});

describe('scoreRepair', () => {
  const key = (id: string) => ({ kind: 'repair', id, instance: `i-${id}` }) as RepairKey;
  const keys = [key('r1'), key('r2'), key('r3')];
  const yes: RepairVerdict = { resolved: true, outcome: 'resolved' };
  const no: RepairVerdict = { resolved: false, outcome: 'crashed', reason: 'KeyError' };
  const verdicts = new Map<string, RepairVerdict>([
    [repairSlot('r1', 1), yes],
    [repairSlot('r1', 2), no],
    [repairSlot('r1', 3), yes],
    [repairSlot('r2', 1), no],
    // r2 attempt 2: no prediction
    [repairSlot('r2', 3), no],
    [repairSlot('r3', 1), yes],
  ]);
  const s = scoreRepair(keys, [1, 2, 3], verdicts, new Map([['r3', 'required module tensorflow not importable']]));

  it('pass@k per task (unbiased), averaged over the scorable tasks', () => {
    expect(s.passAtK).toEqual([
      { k: 1, value: (2 / 3 + 0) / 2 },
      { k: 2, value: (1 + 0) / 2 },
      { k: 3, value: (1 + 0) / 2 },
    ]);
    expect(s.resolved).toEqual({ correct: 2, total: 6, value: 2 / 6 });
  });

  it('never counts an excluded task, and counts a missing attempt as unresolved', () => {
    expect(s.scorable).toBe(2);
    expect(s.excluded).toEqual([{ task: 'r3', instance: 'i-r3', reason: 'required module tensorflow not importable' }]);
    expect(s.results.some((r) => r.task === 'r3')).toBe(false);
    expect(s.outcomes).toEqual({ resolved: 2, crashed: 3, 'no-prediction': 1 });
  });
});
