import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  JunoError,
  assertReadableFile,
  checkSchema,
  formatIssue,
  type DetectAnswer,
  type DiagnoseAnswer,
  type RepairAnswer,
  type TaskKind,
} from '@junobench/core';
import type { TaskKey } from './plan-tasks.js';

export type Answer = DetectAnswer | DiagnoseAnswer | RepairAnswer;

export interface ParsedPrediction {
  /** 1-based line in the predictions file. */
  line: number;
  task: TaskKind;
  id: string;
  attempt: number;
  answer: Answer;
}

/** A line that cannot be scored: malformed, for an unknown task, or a duplicate. */
export interface PredictionProblem {
  line: number;
  message: string;
}

export interface ParsedPredictions {
  predictions: ParsedPrediction[];
  problems: PredictionProblem[];
  /** Non-blank lines read. */
  lines: number;
}

/**
 * Check prediction lines against the schema and the tasks: each problem is
 * kept with its line number, never thrown, so the caller decides (exit 2, or
 * skip with `--lenient`). The first answer for a (task, attempt) wins; later
 * ones are duplicates.
 */
export function parsePredictionLines(lines: Iterable<{ line: number; text: string }>, keys: ReadonlyMap<string, TaskKey>): ParsedPredictions {
  const predictions: ParsedPrediction[] = [];
  const problems: PredictionProblem[] = [];
  const seen = new Map<string, number>();
  let count = 0;
  for (const { line, text } of lines) {
    if (text.trim() === '') continue;
    count++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      problems.push({ line, message: `invalid JSON: ${(e as Error).message}` });
      continue;
    }
    const issues = checkSchema('prediction', value);
    if (issues.length > 0) {
      const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
      problems.push({ line, message: `not a valid prediction: ${formatIssue(issues[0]!)}${more}` });
      continue;
    }
    const p = value as { task: TaskKind; id: string; attempt?: number; answer: Answer };
    const key = keys.get(p.id);
    if (!key) {
      problems.push({ line, message: `unknown task "${p.id}": none of the tasks being scored has this id` });
      continue;
    }
    if (key.kind !== p.task) {
      problems.push({ line, message: `task "${p.id}" is a ${key.kind} task, but the line says "task": "${p.task}"` });
      continue;
    }
    const attempt = p.attempt ?? 1;
    const slot = `${p.id}\u0000${attempt}`;
    const first = seen.get(slot);
    if (first !== undefined) {
      problems.push({ line, message: `a second answer for task "${p.id}" attempt ${attempt} (the first is on line ${first}); number the attempts 1, 2, …` });
      continue;
    }
    seen.set(slot, line);
    predictions.push({ line, task: p.task, id: p.id, attempt, answer: p.answer });
  }
  return { predictions, problems, lines: count };
}

/** Read a predictions file (JSONL, streamed) and check it against the tasks' keys. */
export async function readPredictions(file: string, keys: ReadonlyMap<string, TaskKey>): Promise<ParsedPredictions> {
  await assertReadableFile(file);
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  const lines: { line: number; text: string }[] = [];
  let n = 0;
  for await (const text of rl) lines.push({ line: ++n, text });
  return parsePredictionLines(lines, keys);
}

/** The error for problems found when `--lenient` is not given: exit 2, naming the first lines. */
export function predictionProblemsError(file: string, problems: readonly PredictionProblem[]): JunoError {
  const shown = problems.slice(0, 5).map((p) => `line ${p.line}: ${p.message}`);
  const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : '';
  return new JunoError('E_INPUT_ROW', `${problems.length} prediction line${problems.length > 1 ? 's' : ''} cannot be scored:\n  ${shown.join('\n  ')}${more}`, {
    location: { file, line: problems[0]!.line },
    hint: 'fix those lines (format: schemas/prediction.schema.json; ids from the tasks file), or pass --lenient to score the rest and count them as missing',
  });
}
