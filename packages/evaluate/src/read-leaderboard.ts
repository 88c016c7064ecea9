import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  compareCodePoints,
  JunoError,
  readJsonFile,
  stableStringify,
  type Comparison,
  type Scorecard,
} from '@junobench/core';
import type { CompareOptions } from '@junobench/compare';

/** The leaderboard's data (the shape @junobench/report's Leaderboard takes). */
export interface LeaderboardData {
  groups: { benchmark: string; comparison: Comparison }[];
  scorecards: {
    tool: string;
    file: string;
    predictionsSha256: string;
    junobench: string;
    context: string;
    benchmark: string;
  }[];
}

const SCORECARD = 'scorecard.json';

/**
 * Every scorecard under a folder (`score --out` writes `<dir>/scorecard.json`, or `<dir>/<tool>/scorecard.json` for
 * several tools), grouped by benchmark identity and task seed, each group compared (@junobench/compare: intervals over
 * instances, paired tests). Scorecards of different benchmarks are never ranked together.
 */
export async function readLeaderboard(dir: string, options: CompareOptions = {}): Promise<LeaderboardData> {
  const { compareScorecards, describeBenchmark } = await import('@junobench/compare');
  const files = await findScorecards(dir);
  if (files.length === 0) {
    throw new JunoError('E_INPUT_NOT_FOUND', `no ${SCORECARD} under ${dir}`, {
      location: { file: dir },
      hint: 'score the tools first: junobench score a.jsonl b.jsonl --tasks tasks.jsonl --out <dir>',
    });
  }
  const cards: { file: string; tool: string; card: Scorecard }[] = [];
  for (const file of files) {
    const card = await readJsonFile<Scorecard>(file, { schema: 'scorecard' });
    if (!card.provenance) {
      throw new JunoError('E_INPUT_FORMAT', 'the scorecard records no provenance (tool, benchmark, tasks)', {
        location: { file },
        hint: 'score its predictions again with this junobench',
      });
    }
    const rel = path.relative(dir, file).split(path.sep).join('/');
    cards.push({
      file: rel,
      tool: card.provenance.tool ?? (path.dirname(rel) === '.' ? 'tool' : path.dirname(rel)),
      card,
    });
  }
  const byKey = new Map<string, typeof cards>();
  for (const c of cards) {
    const p = c.card.provenance!;
    const key = stableStringify({ benchmark: p.benchmark, seed: p.tasks.seed });
    byKey.set(key, [...(byKey.get(key) ?? []), c]);
  }
  const groups: LeaderboardData['groups'] = [];
  for (const key of [...byKey.keys()].sort(compareCodePoints)) {
    const group = byKey.get(key)!;
    const names = new Set<string>();
    for (const c of group) {
      if (names.has(c.tool))
        throw new JunoError('E_USAGE', `two scorecards under ${dir} name the tool ${c.tool} on the same benchmark`, {
          location: { file: path.join(dir, c.file) },
          hint: 'score each tool once per benchmark (score --tool <name>), or keep one of the scorecards',
        });
      names.add(c.tool);
    }
    const comparison = compareScorecards(
      group.map((c) => ({ name: c.tool, scorecard: c.card })),
      options,
    );
    groups.push({ benchmark: describeBenchmark(comparison.benchmark), comparison });
  }
  return {
    groups,
    scorecards: cards.map((c) => ({
      tool: c.tool,
      file: c.file,
      predictionsSha256: c.card.provenance!.predictions.sha256,
      junobench: c.card.provenance!.junobench,
      context: c.card.provenance!.tasks.context,
      benchmark: describeBenchmark(c.card.provenance!.benchmark),
    })),
  };
}

async function findScorecards(dir: string, depth = 0): Promise<string[]> {
  const names = await readdir(dir).catch((e: unknown) => {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such folder of scorecards', { location: { file: dir }, cause: e });
  });
  const out: string[] = [];
  for (const name of names.sort(compareCodePoints)) {
    const p = path.join(dir, name);
    const st = await stat(p);
    if (st.isFile() && name === SCORECARD) out.push(p);
    else if (st.isDirectory() && depth < 2 && !name.startsWith('.')) out.push(...(await findScorecards(p, depth + 1)));
  }
  return out;
}
