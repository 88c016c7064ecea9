import {
  JunoError,
  compareCodePoints,
  stableStringify,
  type Comparison,
  type ComparisonTable,
  type Scorecard,
  type TaskKind,
} from '@junobench/core';
import { bootstrapClusters, mcnemarExact, type Cluster } from './paired-statistics.js';

export const DEFAULT_COMPARE_RESAMPLES = 2000;
export const DEFAULT_COMPARE_SEED = 'junobench-compare-1';
export const DEFAULT_COMPARE_CONFIDENCE = 0.95;

export interface ComparedScorecard {
  name: string;
  scorecard: Scorecard;
}

export interface CompareOptions {
  resamples?: number;
  confidence?: number;
  seed?: string;
}

/** A metric: which kind of task, and how to read one task's outcome (0…1) from a scorecard. */
interface MetricSpec {
  kind: TaskKind;
  metric: string;
  outcomes: (card: Scorecard) => Map<string, { instance: string; value: number }>;
}

const DIAGNOSE_DIMENSIONS = ['library', 'crashType', 'rootCause', 'pipelineStage'] as const;

/** The metrics compared, in table order. */
export const COMPARED_METRICS: readonly MetricSpec[] = [
  {
    kind: 'detect',
    metric: 'crash',
    outcomes: (card) =>
      new Map((card.detect?.results ?? []).map((r) => [r.task, { instance: r.instance, value: r.correct ? 1 : 0 }])),
  },
  {
    kind: 'detect',
    metric: 'exception',
    outcomes: (card) =>
      new Map(
        (card.detect?.results ?? [])
          .filter((r) => r.crashes)
          .map((r) => [
            r.task,
            {
              instance: r.instance,
              value: r.predicted.crashes === true && r.predicted.exception === r.exception ? 1 : 0,
            },
          ]),
      ),
  },
  ...DIAGNOSE_DIMENSIONS.map((d): MetricSpec => ({
    kind: 'diagnose',
    metric: d,
    outcomes: (card) =>
      new Map(
        (card.diagnose?.results ?? []).map((r) => [
          r.task,
          { instance: r.instance, value: r.predicted[d] !== null && r.predicted[d] === r.truth[d] ? 1 : 0 },
        ]),
      ),
  })),
  {
    kind: 'repair',
    metric: 'resolved',
    // A task's outcome is the share of its attempts resolved (its pass@1); excluded tasks are not scorable.
    outcomes: (card) => {
      const byTask = new Map<string, { instance: string; resolved: number; attempts: number }>();
      for (const r of card.repair?.results ?? []) {
        const t = byTask.get(r.task) ?? { instance: r.instance, resolved: 0, attempts: 0 };
        t.attempts++;
        if (r.resolved) t.resolved++;
        byTask.set(r.task, t);
      }
      return new Map([...byTask].map(([task, t]) => [task, { instance: t.instance, value: t.resolved / t.attempts }]));
    },
  },
];

/**
 * Compare tools scored on the same tasks of the same benchmark: per metric, overall and per library, each tool's score
 * with a bootstrap interval over instances, and per pair the paired difference with its interval and McNemar's exact
 * test on the per-task outcomes (repair: a task counts as resolved when most of its attempts are). Pure: the same
 * scorecards and seed give the same comparison.
 */
export function compareScorecards(cards: readonly ComparedScorecard[], options: CompareOptions = {}): Comparison {
  checkComparable(cards);
  const settings = {
    resamples: options.resamples ?? DEFAULT_COMPARE_RESAMPLES,
    confidence: options.confidence ?? DEFAULT_COMPARE_CONFIDENCE,
    seed: options.seed ?? DEFAULT_COMPARE_SEED,
    cluster: 'instance' as const,
  };
  const libraries: Record<string, string> = Object.assign({}, ...cards.map((c) => c.scorecard.libraries ?? {}));
  const tables: ComparisonTable[] = [];
  for (const spec of COMPARED_METRICS) {
    const perTool = cards.map((c) => spec.outcomes(c.scorecard));
    // Only tasks every tool was scored on (a repair task excluded in one runtime is left out of all).
    const tasks = [...perTool[0]!.keys()].filter((t) => perTool.every((m) => m.has(t))).sort(compareCodePoints);
    if (tasks.length === 0) continue;
    const scopes = [
      null,
      ...[...new Set(tasks.map((t) => libraries[perTool[0]!.get(t)!.instance]).filter((l) => l !== undefined))].sort(
        compareCodePoints,
      ),
    ];
    for (const library of scopes) {
      const inScope = tasks.filter((t) => library === null || libraries[perTool[0]!.get(t)!.instance] === library);
      tables.push(planTable(spec, library, inScope, perTool, cards, settings));
    }
  }
  const first = cards[0]!.scorecard.provenance!;
  return {
    benchmark: first.benchmark,
    tools: cards.map((c) => ({
      name: c.name,
      predictionsSha256: c.scorecard.provenance!.predictions.sha256,
      context: c.scorecard.provenance!.tasks.context,
    })),
    settings,
    tables,
  };
}

function planTable(
  spec: MetricSpec,
  library: string | null,
  tasks: readonly string[],
  perTool: readonly Map<string, { instance: string; value: number }>[],
  cards: readonly ComparedScorecard[],
  settings: { resamples: number; confidence: number; seed: string },
): ComparisonTable {
  const byInstance = new Map<string, Cluster & { sums: number[] }>();
  for (const t of tasks) {
    const instance = perTool[0]!.get(t)!.instance;
    const c = byInstance.get(instance) ?? { sums: perTool.map(() => 0), count: 0 };
    perTool.forEach((m, i) => (c.sums[i]! += m.get(t)!.value));
    c.count++;
    byInstance.set(instance, c);
  }
  const clusters = [...byInstance.keys()].sort(compareCodePoints).map((k) => byInstance.get(k)!);
  // Each table draws from its own stream: adding a table or a tool elsewhere does not move this one's intervals.
  const boot = bootstrapClusters(clusters, {
    ...settings,
    seed: `${settings.seed}\u0000${spec.kind}\u0000${spec.metric}\u0000${library ?? ''}`,
  });
  const value = (i: number) =>
    perTool[i]!.size === 0 ? 0 : tasks.reduce((s, t) => s + perTool[i]!.get(t)!.value, 0) / tasks.length;
  const pass = (i: number, t: string) => perTool[i]!.get(t)!.value > 0.5;
  const pairs: ComparisonTable['pairs'] = [];
  let p = 0;
  for (let i = 0; i < cards.length; i++)
    for (let j = i + 1; j < cards.length; j++) {
      const onlyA = tasks.filter((t) => pass(i, t) && !pass(j, t)).length;
      const onlyB = tasks.filter((t) => !pass(i, t) && pass(j, t)).length;
      pairs.push({
        a: cards[i]!.name,
        b: cards[j]!.name,
        difference: value(i) - value(j),
        ci: boot.differences[p++]!,
        onlyA,
        onlyB,
        pValue: mcnemarExact(onlyA, onlyB),
      });
    }
  return {
    kind: spec.kind,
    metric: spec.metric,
    library,
    tasks: tasks.length,
    instances: clusters.length,
    scores: cards.map((c, i) => ({ tool: c.name, value: value(i), ci: boot.scores[i]! })),
    pairs,
  };
}

/** Scorecards are compared only when they scored tasks of the same seed on the same benchmark. */
function checkComparable(cards: readonly ComparedScorecard[]): void {
  if (cards.length === 0) throw new JunoError('E_USAGE', 'nothing to compare', { hint: 'give two or more scorecards' });
  const names = new Set<string>();
  for (const c of cards) {
    if (!c.scorecard.provenance)
      throw new JunoError('E_INPUT_FORMAT', `the scorecard of ${c.name} records no provenance (benchmark, tasks)`, {
        hint: 'score its predictions again with this junobench',
      });
    if (names.has(c.name))
      throw new JunoError('E_USAGE', `two tools are named ${c.name}`, {
        hint: 'name each with --tool a,b,… (one name per predictions file)',
      });
    names.add(c.name);
  }
  const first = cards[0]!;
  const p0 = first.scorecard.provenance!;
  for (const c of cards.slice(1)) {
    const p = c.scorecard.provenance!;
    if (stableStringify(p.benchmark) !== stableStringify(p0.benchmark))
      throw new JunoError('E_USAGE', `${c.name} and ${first.name} were scored on different benchmarks`, {
        hint: 'score every tool on the same --release (or the same raw tree)',
      });
    // The same seed gives the same task ids: tasks exported with and without the runtime context are the same tasks
    // (their files differ in the prompts only), which is what comparing the two contexts needs.
    if (p.tasks.seed !== p0.tasks.seed)
      throw new JunoError(
        'E_USAGE',
        `${c.name} and ${first.name} answer different tasks (seeds ${p.tasks.seed} and ${p0.tasks.seed})`,
        {
          hint: 'export the tasks of every tool with the same --seed',
        },
      );
  }
}
