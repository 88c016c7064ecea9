import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JunoError, type Comparison } from '@junobench/core';
import type { CompareOptions } from '@junobench/compare';
import type { RunScoreOptions, ScoreResult } from '@junobench/score';
import type { InstanceSet } from './open-instance-set.js';

const TOOLCHAIN_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The junobench version recorded in scorecards: the toolchain's root package.json. */
export async function readJunobenchVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(path.join(TOOLCHAIN_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

export interface ScoreToolsOptions extends Omit<
  RunScoreOptions,
  'predictions' | 'instancesDir' | 'ids' | 'provenance' | 'trajectories'
> {
  set: Pick<InstanceSet, 'instancesDir' | 'ids' | 'identity'>;
  /** One predictions file per tool. */
  predictions: readonly string[];
  /** The tools' names, one per predictions file (default: each file's name without .jsonl). */
  tools?: readonly string[];
  compare?: CompareOptions;
  /** The trajectories folder of each predictions file, in the same order (undefined: none for that file). */
  trajectories?: readonly (string | undefined)[];
  /** Called as each tool's predictions are about to be scored (several files: one after the other). */
  onTool?: (tool: string, index: number) => void;
}

export interface ScoreToolsResult {
  results: { tool: string; predictions: string; result: ScoreResult }[];
  /** Two or more predictions files: the comparison of their scorecards. */
  comparison?: Comparison;
}

/**
 * `score A.jsonl [B.jsonl …]`: each predictions file scored on exactly the set's instances, its scorecard recording
 * the tool, the benchmark's identity and the junobench version; with two or more, the scorecards compared
 * (@junobench/compare).
 */
export async function scoreTools(options: ScoreToolsOptions): Promise<ScoreToolsResult> {
  const { runScore, defaultToolName } = await import('@junobench/score');
  const { predictions, tools, set, compare, onTool, trajectories, ...rest } = options;
  if (tools && tools.length !== predictions.length) {
    throw new JunoError(
      'E_USAGE',
      `--tool names ${tools.length} tool${tools.length === 1 ? '' : 's'} for ${predictions.length} predictions file${predictions.length === 1 ? '' : 's'}`,
      { hint: 'give one name per predictions file, in the same order: --tool a,b' },
    );
  }
  const names = predictions.map((p, i) => tools?.[i] ?? defaultToolName(p));
  const junobench = await readJunobenchVersion();
  const results: ScoreToolsResult['results'] = [];
  for (const [i, file] of predictions.entries()) {
    onTool?.(names[i]!, i);
    const result = await runScore({
      ...rest,
      predictions: file,
      ...(trajectories?.[i] ? { trajectories: trajectories[i] } : {}),
      instancesDir: set.instancesDir,
      ids: set.ids,
      provenance: { tool: names[i]!, benchmark: set.identity, junobench },
    });
    results.push({ tool: names[i]!, predictions: file, result });
  }
  if (results.length < 2) return { results };
  const { compareScorecards } = await import('@junobench/compare');
  const comparison = compareScorecards(
    results.map((r) => ({ name: r.tool, scorecard: r.result.scorecard })),
    compare ?? {},
  );
  return { results, comparison };
}
