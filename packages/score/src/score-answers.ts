import {
  LABEL_DIMENSIONS,
  compareCodePoints,
  type DetectAnswer,
  type DetectMetrics,
  type DetectScore,
  type DiagnoseAnswer,
  type DiagnoseScore,
  type DimensionScore,
  type LabelDimension,
  type Rate,
  type RepairAttemptResult,
  type RepairOutcome,
  type RepairScore,
} from '@junobench/core';
import { majorityVote, passAtK, planPassKs, pooledRate, rate, scoreClasses } from './metrics.js';
import { parseAnswerException, type DetectKey, type DiagnoseKey, type RepairKey } from './plan-tasks.js';
import type { ParsedPrediction } from './read-predictions.js';
import type { RepairVerdict } from './check-repair.js';

/**
 * The attempt numbers scored for one task kind: those used by its predictions (at least attempt 1), and `leftOut`,
 * the attempts of its lines left out with `--lenient` — missing answers of those attempts, not fewer attempts.
 */
export function planAttempts(predictions: readonly ParsedPrediction[], leftOut: readonly number[] = []): number[] {
  const set = new Set([...predictions.map((p) => p.attempt), ...leftOut]);
  return set.size === 0 ? [1] : [...set].sort((a, b) => a - b);
}

/** answers[t][a]: the answer of attempt attempts[a] to task keys[t], undefined when missing. */
function tabulate<A>(
  ids: readonly string[],
  attempts: readonly number[],
  predictions: readonly ParsedPrediction[],
): (A | undefined)[][] {
  const by = new Map<string, A>();
  for (const p of predictions) by.set(`${p.id}\u0000${p.attempt}`, p.answer as A);
  return ids.map((id) => attempts.map((a) => by.get(`${id}\u0000${a}`)));
}

interface DetectView {
  crashes: boolean | undefined;
  cell: number | null | undefined;
  exception: string | null | undefined;
}

function viewDetect(key: DetectKey, a: DetectAnswer | undefined): DetectView {
  if (!a) return { crashes: undefined, cell: undefined, exception: undefined };
  return {
    crashes: a.crashes,
    cell: a.cell !== undefined ? a.cell : a.crashes ? key.target : null,
    exception: a.crashes ? parseAnswerException(a.exception ?? '') || null : null,
  };
}

function judgeDetect(key: DetectKey, v: DetectView): { crash: boolean; cell: boolean; exception: boolean } {
  return {
    crash: v.crashes !== undefined && v.crashes === key.crashes,
    cell: v.cell !== undefined && v.cell === key.cell,
    exception: key.crashes && v.crashes === true && v.exception === key.exception,
  };
}

function detectMetrics(keys: readonly DetectKey[], views: readonly DetectView[]): DetectMetrics {
  let crash = 0;
  let cell = 0;
  let exception = 0;
  keys.forEach((k, i) => {
    const j = judgeDetect(k, views[i]!);
    if (j.crash) crash++;
    if (j.cell) cell++;
    if (j.exception) exception++;
  });
  return {
    crash: rate(crash, keys.length),
    cell: rate(cell, keys.length),
    exception: rate(exception, keys.filter((k) => k.crashes).length),
  };
}

/**
 * Detect: accuracy of crash / no crash, of the cell and of the exception class, singly (pooled over attempts) and by
 * majority vote.
 */
export function scoreDetect(
  keys: readonly DetectKey[],
  predictions: readonly ParsedPrediction[],
  leftOut: readonly number[] = [],
): DetectScore {
  const attempts = planAttempts(predictions, leftOut);
  const answers = tabulate<DetectAnswer>(
    keys.map((k) => k.id),
    attempts,
    predictions,
  );
  const perAttempt = attempts.map((_, a) =>
    detectMetrics(
      keys,
      keys.map((k, t) => viewDetect(k, answers[t]![a])),
    ),
  );
  const voted = keys.map((k, t) => {
    const views = answers[t]!.map((a) => viewDetect(k, a));
    // A missing attempt abstains: it is no answer, not an answer "no answer" that could win a tie by attempt order.
    const crashes = majorityVote(views.flatMap((v) => (v.crashes === undefined ? [] : [v.crashes])));
    if (crashes !== true)
      return {
        crashes,
        cell: crashes === false ? null : undefined,
        exception: crashes === false ? null : undefined,
      } satisfies DetectView;
    // The cell and the exception of a "crashes" majority are voted among the attempts that say it crashes: voted over
    // every attempt, the no-crash attempts' null could win (a crash with no exception), by attempt order alone.
    const crashing = views.filter((v) => v.crashes === true);
    return {
      crashes,
      cell: majorityVote(crashing.map((v) => v.cell)),
      exception: majorityVote(crashing.map((v) => v.exception)),
    } satisfies DetectView;
  });
  const confusion = { truePositive: 0, falsePositive: 0, trueNegative: 0, falseNegative: 0, missing: 0 };
  for (const [t, k] of keys.entries()) {
    const p = voted[t]!.crashes;
    if (p === undefined) confusion.missing++;
    else if (p && k.crashes) confusion.truePositive++;
    else if (p && !k.crashes) confusion.falsePositive++;
    else if (!p && !k.crashes) confusion.trueNegative++;
    else confusion.falseNegative++;
  }
  return {
    tasks: keys.length,
    attempts: attempts.length,
    single: {
      crash: pooledRate(perAttempt.map((m) => m.crash)),
      cell: pooledRate(perAttempt.map((m) => m.cell)),
      exception: pooledRate(perAttempt.map((m) => m.exception)),
    },
    majority: detectMetrics(keys, voted),
    confusion,
    results: keys.map((k, t) => {
      const v = voted[t]!;
      return {
        task: k.id,
        instance: k.instance,
        version: k.version,
        crashes: k.crashes,
        ...(k.exception ? { exception: k.exception } : {}),
        predicted: { crashes: v.crashes ?? null, cell: v.cell ?? null, exception: v.exception ?? null },
        correct: judgeDetect(k, v).crash,
      };
    }),
  };
}

/** Diagnose: accuracy and macro-F1 per dimension, singly and by majority vote, and a table per library. */
export function scoreDiagnose(
  keys: readonly DiagnoseKey[],
  predictions: readonly ParsedPrediction[],
  leftOut: readonly number[] = [],
): DiagnoseScore {
  const attempts = planAttempts(predictions, leftOut);
  const answers = tabulate<DiagnoseAnswer>(
    keys.map((k) => k.id),
    attempts,
    predictions,
  );
  const voted: Record<LabelDimension, (string | undefined)[]> = Object.fromEntries(
    // Missing attempts, and answers that leave the dimension out, abstain (wrong in the single scores, no vote here).
    LABEL_DIMENSIONS.map((d) => [
      d,
      keys.map((_, t) => majorityVote(answers[t]!.flatMap((a) => (a?.[d] === undefined ? [] : [a[d]])))),
    ]),
  ) as Record<LabelDimension, (string | undefined)[]>;
  const dimensions = Object.fromEntries(
    LABEL_DIMENSIONS.map((d) => {
      const truth = keys.map((k) => k.labels[d] as string);
      const single = attempts.map((_, a) => {
        const predicted = keys.map((_, t) => answers[t]![a]?.[d] as string | undefined);
        return { accuracy: accuracyOf(truth, predicted), macroF1: scoreClasses(truth, predicted).macroF1 };
      });
      const majority = scoreClasses(truth, voted[d]);
      const score: DimensionScore = {
        single: {
          accuracy: pooledRate(single.map((s) => s.accuracy)),
          macroF1: single.reduce((s, x) => s + x.macroF1, 0) / single.length,
        },
        majority: { accuracy: accuracyOf(truth, voted[d]), macroF1: majority.macroF1 },
        classes: majority.classes,
      };
      return [d, score];
    }),
  ) as Record<LabelDimension, DimensionScore>;
  const libraries = [...new Set(keys.map((k) => k.labels.library as string))].sort(compareCodePoints);
  const perLibrary = libraries.map((library) => {
    const idx = keys.flatMap((k, t) => (k.labels.library === library ? [t] : []));
    const accuracy = Object.fromEntries(
      LABEL_DIMENSIONS.map((d) => [
        d,
        accuracyOf(
          idx.map((t) => keys[t]!.labels[d] as string),
          idx.map((t) => voted[d][t]),
        ),
      ]),
    ) as Record<LabelDimension, Rate>;
    return { library, tasks: idx.length, accuracy };
  });
  return {
    tasks: keys.length,
    attempts: attempts.length,
    dimensions,
    perLibrary,
    results: keys.map((k, t) => ({
      task: k.id,
      instance: k.instance,
      truth: Object.fromEntries(LABEL_DIMENSIONS.map((d) => [d, k.labels[d] as string])) as Record<
        LabelDimension,
        string
      >,
      predicted: Object.fromEntries(LABEL_DIMENSIONS.map((d) => [d, voted[d][t] ?? null])) as Record<
        LabelDimension,
        string | null
      >,
    })),
  };
}

function accuracyOf(truth: readonly string[], predicted: readonly (string | undefined)[]): Rate {
  return rate(truth.filter((t, i) => predicted[i] === t).length, truth.length);
}

/** Repair: resolved share and pass@k from the verdicts of the scorable tasks' attempts. */
export function scoreRepair(
  keys: readonly RepairKey[],
  attempts: readonly number[],
  verdicts: ReadonlyMap<string, RepairVerdict>,
  excluded: ReadonlyMap<string, string>,
): RepairScore {
  const scorable = keys.filter((k) => !excluded.has(k.id));
  const n = attempts.length;
  const results: RepairAttemptResult[] = [];
  const outcomes: Partial<Record<RepairOutcome, number>> = {};
  const passed: number[] = [];
  for (const k of scorable) {
    let c = 0;
    for (const a of attempts) {
      const v = verdicts.get(repairSlot(k.id, a)) ?? {
        resolved: false,
        outcome: 'no-prediction' as const,
        reason: 'no prediction for this task',
      };
      if (v.resolved) c++;
      outcomes[v.outcome] = (outcomes[v.outcome] ?? 0) + 1;
      results.push({ task: k.id, instance: k.instance, attempt: a, ...v });
    }
    passed.push(c);
  }
  const passAtKs = planPassKs(n).map((k) => ({
    k,
    value: scorable.length === 0 ? 0 : passed.reduce((s, c) => s + passAtK(n, c, k), 0) / scorable.length,
  }));
  return {
    tasks: keys.length,
    scorable: scorable.length,
    excluded: keys
      .filter((k) => excluded.has(k.id))
      .map((k) => ({ task: k.id, instance: k.instance, reason: excluded.get(k.id)! })),
    attempts: n,
    resolved: rate(
      passed.reduce((s, c) => s + c, 0),
      scorable.length * n,
    ),
    passAtK: passAtKs,
    outcomes,
    results,
  };
}

export const repairSlot = (task: string, attempt: number): string => `${task}\u0000${attempt}`;
