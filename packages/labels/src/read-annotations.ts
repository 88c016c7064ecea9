import { readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  checkSchema,
  compareCodePoints,
  formatIssue,
  formatLocation,
  JunoError,
  LABEL_DIMENSIONS,
  pointerToField,
  readJsonl,
  type Adjudication,
  type Annotation,
  type ErrorCode,
  type JsonlLine,
  type LabelDimension,
} from '@junobench/core';
import { checkLabelValue } from './check-label.js';

/** One annotator's labels, as read from `raw/annotations/<annotator>.jsonl`. */
export interface AnnotationSet {
  annotator: string;
  /** The file it came from, for messages; absent for sets built in memory. */
  file?: string;
  annotations: Annotation[];
}

/**
 * A line of `adjudicated.jsonl` (schemas/adjudication.schema.json): the final
 * word on the dimensions it gives, with where it came from for messages.
 */
export interface AdjudicationLine extends Adjudication {
  file?: string;
  line?: number;
}

/** The adjudication file's name inside an annotations folder; every other `*.jsonl` there is one annotator. */
export const ADJUDICATION_FILE = 'adjudicated.jsonl';

interface Problem {
  code: ErrorCode;
  line: number;
  field?: string;
  message: string;
}

/**
 * Validate parsed annotation lines: the schema, every label against the
 * vocabularies (with "did you mean"), one annotator per file, one line per
 * instance. Collects every problem and throws one JunoError listing them all.
 */
export function parseAnnotations(lines: readonly JsonlLine<unknown>[], file: string): AnnotationSet {
  const problems: Problem[] = [];
  const annotations: Annotation[] = [];
  const firstLineOf = new Map<string, number>();
  let annotator: { name: string; line: number } | undefined;
  for (const { value, line } of lines) {
    const before = problems.length;
    checkShape('annotation', value, line, problems);
    if (problems.length > before) continue;
    const a = value as Annotation;
    checkLabels(a, LABEL_DIMENSIONS, line, problems);
    if (!annotator) annotator = { name: a.annotator, line };
    else if (a.annotator !== annotator.name) {
      problems.push({
        code: 'E_LABELS',
        line,
        field: 'annotator',
        message: `annotator "${a.annotator}" differs from "${annotator.name}" on line ${annotator.line}; one file holds one annotator's labels`,
      });
    }
    const seen = firstLineOf.get(a.instance);
    if (seen !== undefined) {
      problems.push({
        code: 'E_LABELS',
        line,
        field: 'instance',
        message: `instance "${a.instance}" is annotated twice (also on line ${seen}); keep one line per instance`,
      });
    } else firstLineOf.set(a.instance, line);
    annotations.push(a);
  }
  throwIfProblems(
    file,
    problems,
    'fix the labels to the exact vocabulary values listed in schemas/taxonomy.schema.json',
  );
  if (!annotator) {
    throw new JunoError('E_INPUT_EMPTY', 'no annotations in this file', {
      location: { file },
      hint: 'one JSON line per instance: {"instance":"pandas_1","annotator":"annotator-a","library":"pandas","crashType":"key error","rootCause":"API misuse","pipelineStage":"data preparation"}',
    });
  }
  return { annotator: annotator.name, file, annotations };
}

/** Validate parsed lines of an adjudication file (schemas/adjudication.schema.json), like parseAnnotations. */
export function parseAdjudications(lines: readonly JsonlLine<unknown>[], file: string): AdjudicationLine[] {
  const problems: Problem[] = [];
  const out: AdjudicationLine[] = [];
  const firstLineOf = new Map<string, number>();
  for (const { value, line } of lines) {
    const before = problems.length;
    checkShape('adjudication', value, line, problems);
    if (problems.length > before) continue;
    const a = value as Adjudication;
    if (LABEL_DIMENSIONS.every((d) => a[d] === undefined) && a.diagnosis === undefined) {
      problems.push({
        code: 'E_LABELS',
        line,
        message: `the adjudication of "${a.instance}" gives no label; name at least one of ${LABEL_DIMENSIONS.join(', ')} or diagnosis`,
      });
      continue;
    }
    checkLabels(
      a,
      LABEL_DIMENSIONS.filter((d) => a[d] !== undefined),
      line,
      problems,
    );
    const seen = firstLineOf.get(a.instance);
    if (seen !== undefined) {
      problems.push({
        code: 'E_LABELS',
        line,
        field: 'instance',
        message: `instance "${a.instance}" is adjudicated twice (also on line ${seen}); keep one line per instance`,
      });
    } else firstLineOf.set(a.instance, line);
    out.push({ ...a, file, line });
  }
  throwIfProblems(
    file,
    problems,
    'fix the labels to the exact vocabulary values listed in schemas/taxonomy.schema.json',
  );
  return out;
}

/** Read and validate one annotator's file. */
export async function readAnnotations(file: string): Promise<AnnotationSet> {
  return parseAnnotations(await readLines(file), file);
}

/** Read and validate an adjudication file. */
export async function readAdjudications(file: string): Promise<AdjudicationLine[]> {
  return parseAdjudications(await readLines(file), file);
}

/**
 * Every annotator's file in a folder (`*.jsonl` except `adjudicated.jsonl`),
 * in file-name order. Two files naming the same annotator are an error.
 */
export async function readAnnotationSets(dir: string): Promise<AnnotationSet[]> {
  const files = (await listJsonl(dir)).filter((f) => f !== ADJUDICATION_FILE);
  const sets: AnnotationSet[] = [];
  for (const f of files) sets.push(await readAnnotations(path.join(dir, f)));
  assertDistinctAnnotators(sets);
  return sets;
}

/**
 * The annotators' files and the adjudication file (when present) of an
 * annotations folder such as `raw/annotations/`.
 */
export async function readAnnotationFolder(
  dir: string,
): Promise<{ sets: AnnotationSet[]; adjudications: AdjudicationLine[] }> {
  const files = await listJsonl(dir);
  const sets = await readAnnotationSets(dir);
  const adjudications = files.includes(ADJUDICATION_FILE)
    ? await readAdjudications(path.join(dir, ADJUDICATION_FILE))
    : [];
  return { sets, adjudications };
}

/** Two sets with the same annotator name would be compared with themselves. */
export function assertDistinctAnnotators(sets: readonly AnnotationSet[]): void {
  const byName = new Map<string, AnnotationSet>();
  for (const s of sets) {
    const other = byName.get(s.annotator);
    if (other) {
      throw new JunoError(
        'E_LABELS',
        `annotator "${s.annotator}" appears in two files: ${other.file ?? '(in memory)'} and ${s.file ?? '(in memory)'}`,
        {
          location: { file: s.file, field: 'annotator' },
          hint: 'give each annotator one file, and a distinct "annotator" value in it',
        },
      );
    }
    byName.set(s.annotator, s);
  }
}

async function readLines(file: string): Promise<JsonlLine<unknown>[]> {
  const lines: JsonlLine<unknown>[] = [];
  for await (const l of readJsonl<unknown>(file)) lines.push(l);
  return lines;
}

async function listJsonl(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such folder', {
      location: { file: dir },
      hint: 'annotations live in raw/annotations/<annotator>.jsonl',
      cause: e,
    });
  }
  return names.filter((n) => n.endsWith('.jsonl') && !n.startsWith('.')).sort(compareCodePoints);
}

function checkShape(schema: 'annotation' | 'adjudication', value: unknown, line: number, problems: Problem[]): void {
  for (const issue of checkSchema(schema, value)) {
    problems.push({
      code: 'E_SCHEMA',
      line,
      field: pointerToField(issue.path) || undefined,
      message: `not a valid ${schema} line: ${formatIssue(issue)}`,
    });
  }
}

function checkLabels(
  value: Partial<Record<LabelDimension, string>>,
  dims: readonly LabelDimension[],
  line: number,
  problems: Problem[],
): void {
  for (const d of dims) {
    const message = checkLabelValue(d, value[d] ?? '');
    if (message) problems.push({ code: 'E_LABELS', line, field: d, message });
  }
}

function throwIfProblems(file: string, problems: Problem[], hint: string): void {
  const first = problems[0];
  if (!first) return;
  const rest = problems.slice(1);
  const more =
    rest.length === 0
      ? ''
      : `\n  and ${rest.length} more problem${rest.length === 1 ? '' : 's'}:\n${rest
          .map((p) => `  - ${formatLocation({ line: p.line, field: p.field })}: ${p.message}`)
          .join('\n')}`;
  throw new JunoError(first.code, `${first.message}${more}`, {
    location: { file, line: first.line, field: first.field },
    hint:
      first.code === 'E_SCHEMA'
        ? 'see schemas/annotation.schema.json and schemas/adjudication.schema.json for the line format'
        : hint,
  });
}
