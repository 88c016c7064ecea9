import { createReadStream } from 'node:fs';
import {
  JunoError,
  LABEL_DIMENSIONS,
  MAX_JSON_DEPTH,
  MAX_LINE_CHARS,
  assertReadableFile,
  checkSchema,
  editDistance,
  findTooDeep,
  isLibraryName,
  formatIssue,
  quoteShort,
  readLinesCapped,
  VOCABULARIES,
  type DetectAnswer,
  type DiagnoseAnswer,
  type RepairAnswer,
  type TaskKind,
} from '@junobench/core';
import { TASK_KINDS, type TaskKey } from './plan-tasks.js';

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
  /**
   * The task kind and attempt of each problem line that names them readably: a line left out (`--lenient`) counts
   * as a missing answer of its attempt, so its attempt number still counts among the kind's attempts.
   */
  problemAttempts?: LeftOutAttempt[];
}

/** A problem line's task kind and attempt (and task id and message, when it names one). */
export interface LeftOutAttempt {
  task: TaskKind;
  attempt: number;
  line: number;
  id?: string;
  message: string;
}

/**
 * Check prediction lines against the schema and the tasks: each problem is
 * kept with its line number, never thrown, so the caller decides (exit 2, or
 * skip with `--lenient`). The first answer for a (task, attempt) wins; later
 * ones are duplicates.
 */
export function parsePredictionLines(
  lines: Iterable<{ line: number; text: string }>,
  keys: ReadonlyMap<string, TaskKey>,
): ParsedPredictions {
  const parser = new PredictionParser(keys);
  for (const { line, text } of lines) parser.add(line, text);
  return parser.result();
}

/** parsePredictionLines one line at a time, so that a file is checked as it streams. */
class PredictionParser {
  private readonly predictions: ParsedPrediction[] = [];
  private readonly problems: PredictionProblem[] = [];
  private readonly seen = new Map<string, number>();
  private readonly problemAttempts: LeftOutAttempt[] = [];
  private count = 0;

  constructor(private readonly keys: ReadonlyMap<string, TaskKey>) {}

  /** A line too long to hold: a problem, counted like any other line. */
  tooLong(line: number, chars: number, max: number): void {
    this.count++;
    this.problems.push({
      line,
      message: `a line of ${chars} characters, longer than the ${max} a prediction line may be`,
    });
  }

  add(line: number, text: string): void {
    // A byte-order mark (PowerShell's Out-File, Notepad) is not part of the first line's JSON.
    if (line === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
    if (text.trim() === '') return;
    this.count++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      this.problems.push({ line, message: `invalid JSON: ${(e as Error).message.slice(0, 200)}` });
      return;
    }
    const before = this.problems.length;
    this.check(line, value);
    if (this.problems.length > before) {
      const slot = readSlot(value);
      const { id } = value as { id?: unknown };
      if (slot)
        this.problemAttempts.push({
          ...slot,
          line,
          ...(typeof id === 'string' ? { id } : {}),
          message: this.problems.at(-1)!.message,
        });
    }
  }

  private check(line: number, value: unknown): void {
    const deep = findTooDeep(value);
    if (deep) {
      // Before anything recursive (schema checks, hashing, JSON.stringify) overflows on it.
      this.problems.push({
        line,
        message: `nested ${deep.depth} levels deep at ${quoteShort(deep.path)}, more than the ${MAX_JSON_DEPTH} a prediction may nest`,
      });
      return;
    }
    const issues = checkSchema('prediction', value);
    if (issues.length > 0) {
      const misnamed = describeMisnamedFields(value);
      // The misnamed fields' own issues ("unknown property") are said by that message.
      const others = misnamed
        ? issues.filter((i) => !misnamed.fields.some((f) => i.message === `has unknown property ${JSON.stringify(f)}`))
            .length
        : issues.length - 1;
      const label = describeLabelOutsideVocabulary(value);
      // A repair answer's shape message says all the schema's alternatives at once (a string, or a list of lines).
      const shape = label || misnamed ? undefined : describeRepairShape(value);
      const more = others > 0 && !shape ? ` (and ${others} more)` : '';
      const first = label ?? misnamed?.message ?? shape ?? formatIssue(issues[0]!).slice(0, 300);
      this.problems.push({ line, message: `not a valid prediction: ${first}${more}` });
      return;
    }
    const p = value as { task: TaskKind; id: string; attempt?: number; answer: Answer };
    const key = this.keys.get(p.id);
    if (!key) {
      // Quoted short: a hostile id may be megabytes long.
      this.problems.push({
        line,
        message: `unknown task ${quoteShort(p.id)}: none of the tasks being scored has this id`,
      });
      return;
    }
    if (key.kind !== p.task) {
      this.problems.push({
        line,
        message: `task "${p.id}" is a ${key.kind} task, but the line says "task": "${p.task}"`,
      });
      return;
    }
    const typo = describeMisspeltLibrary(p);
    if (typo) {
      this.problems.push({ line, message: `not a valid prediction: ${typo}` });
      return;
    }
    const attempt = p.attempt ?? 1;
    const slot = `${p.id}\u0000${attempt}`;
    const first = this.seen.get(slot);
    if (first !== undefined) {
      this.problems.push({
        line,
        message: `a second answer for task "${p.id}" attempt ${attempt} (the first is on line ${first}); number the attempts 1, 2, …`,
      });
      return;
    }
    this.seen.set(slot, line);
    this.predictions.push({ line, task: p.task, id: p.id, attempt, answer: p.answer });
  }

  result(): ParsedPredictions {
    return {
      predictions: this.predictions,
      problems: this.problems,
      lines: this.count,
      problemAttempts: this.problemAttempts,
    };
  }
}

/** The task kind and attempt of a prediction line, when both can be read (no attempt: 1). */
function readSlot(value: unknown): { task: TaskKind; attempt: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { task, attempt } = value as { task?: unknown; attempt?: unknown };
  if (typeof task !== 'string' || !(TASK_KINDS as readonly string[]).includes(task)) return undefined;
  if (attempt === undefined) return { task: task as TaskKind, attempt: 1 };
  return typeof attempt === 'number' && Number.isSafeInteger(attempt) && attempt >= 1
    ? { task: task as TaskKind, attempt }
    : undefined;
}

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

// Package (pip) names and spellings that differ from the vocabulary's import names.
const LIBRARY_ALIASES: Readonly<Record<string, string>> = {
  scikitlearn: 'sklearn',
  pytorch: 'torch',
  opencv: 'cv2',
  opencvpython: 'cv2',
  pillow: 'PIL',
  scikitimage: 'skimage',
  imbalancedlearn: 'imblearn',
  tensorflow: 'tensorflow/keras',
  tfkeras: 'tensorflow/keras',
};

/**
 * The library label meant by a package name (`scikit-learn`) or a module path (`sklearn.preprocessing`, `torch.nn`).
 */
function meantLibrary(given: string): string | undefined {
  const head = given.trim().split('.')[0]!;
  const alias = LIBRARY_ALIASES[squash(given)] ?? LIBRARY_ALIASES[squash(head)];
  if (alias) return alias;
  return head !== given.trim() ? VOCABULARIES.library.find((label) => squash(label) === squash(head)) : undefined;
}

/**
 * A library label may name a library outside the canonical list by its
 * package name (`keras_nlp`), so the schema accepts any lowercase name; one a
 * letter or two away from a canonical library (`pandsa`, `sklean`) is a typo
 * that would be scored wrong in silence, and is refused with the name meant.
 */
function describeMisspeltLibrary(p: { task: TaskKind; answer: Answer }): string | undefined {
  if (p.task !== 'diagnose') return undefined;
  const given = (p.answer as DiagnoseAnswer).library;
  if (given === undefined || isLibraryName(given) || given.length < 4) return undefined;
  const meant = VOCABULARIES.library.find(
    (label) => label.length >= 4 && editDistance(given, label.toLowerCase()) <= 2,
  );
  return meant
    ? `answer.library is ${quoteShort(given)}, which is not a canonical library (did you mean ${JSON.stringify(meant)}?); a library outside the canonical list is given by its package name`
    : undefined;
}

/**
 * A diagnose label outside its vocabulary, said with the value given and the
 * label meant when it differs only in case, spaces or punctuation ("Pandas",
 * "KeyError", "keras"). The schema's own message lists the whole vocabulary
 * (46 libraries), which a message cut to a readable length ends mid-list.
 */
function describeLabelOutsideVocabulary(value: unknown): string | undefined {
  const p = value as { task?: unknown; answer?: unknown };
  if (p?.task !== 'diagnose' || !p.answer || typeof p.answer !== 'object') return undefined;
  const answer = p.answer as Record<string, unknown>;
  for (const d of LABEL_DIMENSIONS) {
    const given = answer[d];
    if (given === null) {
      // null is not "None" (no library caused it): say which to write, rather than list 46 labels cut mid-list.
      const none = d === 'library' ? ' ("None" when no library caused the crash)' : '';
      return `answer.${d} is null: give one label of the ${d} vocabulary${none}, or leave ${d} out (counted wrong)`;
    }
    if (typeof given !== 'string' || VOCABULARIES[d].includes(given)) continue;
    const key = squash(given);
    const meant =
      key === ''
        ? undefined
        : (VOCABULARIES[d].find(
            (label) => squash(label) === key || label.split('/').some((part) => squash(part) === key),
          ) ?? (d === 'library' ? meantLibrary(given) : undefined));
    const hint = meant ? ` (did you mean ${JSON.stringify(meant)}?)` : '';
    return `answer.${d} is ${quoteShort(given)}, which is not in the ${d} vocabulary${hint}; the task's vocabularies.${d} and its prompt list the labels`;
  }
  return undefined;
}

/** The fields of each kind's answer (schemas/prediction.schema.json). */
const ANSWER_FIELDS: Record<TaskKind, readonly string[]> = {
  detect: ['crashes', 'cell', 'exception'],
  diagnose: ['library', 'crashType', 'rootCause', 'pipelineStage', 'diagnosis'],
  repair: ['notebook', 'cells'],
};

/**
 * Answer fields written in another case style — `crash_type`, `root_cause`, `pipeline_stage`, as a Python tool names
 * them — named all at once with the field meant: schema validation names only the first, as an unknown property.
 */
function describeMisnamedFields(value: unknown): { message: string; fields: string[] } | undefined {
  const p = value as { task?: unknown; answer?: unknown };
  if (
    typeof p?.task !== 'string' ||
    !Object.hasOwn(ANSWER_FIELDS, p.task) ||
    !p.answer ||
    typeof p.answer !== 'object' ||
    Array.isArray(p.answer)
  )
    return undefined;
  const fields = ANSWER_FIELDS[p.task as TaskKind];
  const misnamed = Object.keys(p.answer)
    .filter((k) => !fields.includes(k))
    .flatMap((k) => {
      const meant = fields.find((f) => squash(f) === squash(k));
      return meant ? [[k, meant] as const] : [];
    });
  if (misnamed.length === 0) return undefined;
  const given = misnamed.map(([k]) => quoteShort(k)).join(', ');
  const meant = misnamed.map(([, f]) => JSON.stringify(f)).join(', ');
  return {
    message: `answer field${misnamed.length > 1 ? 's' : ''} ${given} ${misnamed.length > 1 ? 'are' : 'is'} not known (did you mean ${meant}?); a ${p.task} answer's fields are ${fields.join(', ')}`,
    fields: misnamed.map(([k]) => k),
  };
}

/**
 * A repair answer of the wrong shape, said with what to give: the schema's own words ("answer.cells[0] must be string
 * (and 1 more)", the other being the list-of-lines form; "answer.notebook must be object") do not say it.
 */
function describeRepairShape(value: unknown): string | undefined {
  const p = value as { task?: unknown; answer?: unknown };
  if (p?.task !== 'repair' || !p.answer || typeof p.answer !== 'object') return undefined;
  const { notebook, cells } = p.answer as { notebook?: unknown; cells?: unknown };
  const shapes =
    'a repair answer is exactly one of {"notebook": <the repaired notebook\'s JSON>} or {"cells": ["<code of code cell 1>", …]}';
  if (notebook === undefined && cells === undefined) {
    const keys = Object.keys(p.answer).slice(0, 5);
    const detect = keys.some((k) => ['crashes', 'cell', 'exception'].includes(k));
    const diagnose = keys.some((k) => ['library', 'crashType', 'rootCause', 'pipelineStage', 'diagnosis'].includes(k));
    const looks = detect ? ' (a detect answer?)' : diagnose ? ' (a diagnose answer?)' : '';
    return `answer has ${keys.length > 0 ? `the fields ${keys.map((k) => quoteShort(k)).join(', ')}${looks}` : 'no field'}: ${shapes}`;
  }
  if (notebook !== undefined && cells !== undefined) return `answer has both "notebook" and "cells": ${shapes}`;
  const kind = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
  if (notebook !== undefined && (typeof notebook !== 'object' || notebook === null || Array.isArray(notebook))) {
    return `answer.notebook is ${kind(notebook)}: give the notebook's JSON object itself (nbformat 4, as read from its .ipynb file), not its path or its text`;
  }
  if (cells !== undefined && !Array.isArray(cells)) {
    return `answer.cells is ${kind(cells)}: give a list of the code cells' code, e.g. {"cells": ["import pandas as pd", "df = pd.read_csv('data/x.csv')"]}`;
  }
  if (Array.isArray(cells)) {
    const i = cells.findIndex(
      (c) => typeof c !== 'string' && !(Array.isArray(c) && c.every((l) => typeof l === 'string')),
    );
    if (i >= 0)
      return `answer.cells[${i}] is ${kind(cells[i])}: each cell is its code, a string or a list of lines (strings)`;
  }
  return undefined;
}

/** Read a predictions file (JSONL, streamed, each line at most `maxLineChars`) and check it against the tasks' keys. */
export async function readPredictions(
  file: string,
  keys: ReadonlyMap<string, TaskKey>,
  options: { maxLineChars?: number } = {},
): Promise<ParsedPredictions> {
  await assertReadableFile(file);
  const max = options.maxLineChars ?? MAX_LINE_CHARS;
  const parser = new PredictionParser(keys);
  for await (const read of readLinesCapped(createReadStream(file, { encoding: 'utf8' }), max)) {
    if ('tooLong' in read) parser.tooLong(read.line, read.tooLong.chars, max);
    else parser.add(read.line, read.text);
  }
  return parser.result();
}

/**
 * The error for problems found when `--lenient` is not given: exit 2, naming the first lines. `lines`: the
 * non-blank lines read, to tell a file none of whose ids is known (the tasks were keyed with another seed or
 * come from other instances) from a few bad lines.
 */
export function predictionProblemsError(
  file: string,
  problems: readonly PredictionProblem[],
  lines?: number,
): JunoError {
  const shown = problems.slice(0, 5).map((p) => `line ${p.line}: ${p.message}`);
  const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : '';
  const noneKnown =
    lines !== undefined && problems.length === lines && problems.every((p) => p.message.startsWith('unknown task '));
  return new JunoError(
    'E_INPUT_ROW',
    `${problems.length} prediction line${problems.length > 1 ? 's' : ''} cannot be scored:\n  ${shown.join('\n  ')}${more}`,
    {
      location: { file, line: problems[0]!.line },
      hint: noneKnown
        ? 'no line names a task being scored: pass the tasks file the tool answered (--tasks <tasks.jsonl>) and the --seed and --instances it was exported with'
        : 'fix those lines (format: schemas/prediction.schema.json; ids from the tasks file), or pass --lenient to score the rest and count them as missing',
    },
  );
}
