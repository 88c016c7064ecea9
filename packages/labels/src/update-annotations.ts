import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  compareCodePoints,
  JunoError,
  LABEL_DIMENSIONS,
  writeFileAtomic,
  type Annotation,
  type JsonlLine,
} from '@junobench/core';
import { ADJUDICATION_FILE, parseAnnotations } from './read-annotations.js';

/** One annotator's file as it is on disk: its lines kept verbatim, so an update rewrites only what it changes. */
export interface AnnotationFile {
  annotator: string;
  file: string;
  /** Whether the file exists yet. */
  exists: boolean;
  /** The file's lines (without their newline), blank ones included. */
  lines: string[];
  /** The line index (0-based, into `lines`) of each instance's annotation. */
  lineOf: Map<string, number>;
  annotations: Map<string, Annotation>;
}

export interface AnnotationChange {
  instance: string;
  fields: { field: string; from: string; to: string }[];
}

export interface AnnotationUpdate {
  file: string;
  /** The file's new text; equal to the old one when nothing changed. */
  text: string;
  changed: boolean;
  added: string[];
  changes: AnnotationChange[];
  unchanged: string[];
}

const ANNOTATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The file name of an annotator's labels, `<annotator>.jsonl`; a name that
 * cannot be one (a path, spaces, the adjudication file's) is refused.
 */
export function annotatorFileName(annotator: string): string {
  if (!ANNOTATOR_NAME.test(annotator) || `${annotator}.jsonl` === ADJUDICATION_FILE) {
    throw new JunoError('E_USAGE', `"${annotator}" cannot name an annotator`, {
      location: { field: '--annotator' },
      hint: 'use letters, digits, ".", "_" or "-" (e.g. --annotator annotator-c); "adjudicated" is the adjudication file',
    });
  }
  return `${annotator}.jsonl`;
}

/**
 * The file of `annotator` in an annotations folder: the one whose lines name
 * that annotator, else `<annotator>.jsonl` (a new file). Other annotators'
 * files are only peeked at for their name; they are never validated,
 * rewritten or touched.
 */
export async function readAnnotationFile(dir: string, annotator: string): Promise<AnnotationFile> {
  const own = annotatorFileName(annotator);
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  let chosen = names.includes(own) ? own : undefined;
  if (!chosen) {
    for (const name of names.filter((n) => n.endsWith('.jsonl') && n !== ADJUDICATION_FILE).sort(compareCodePoints)) {
      const first = (await readFile(path.join(dir, name), 'utf8')).split('\n').find((l) => l.trim() !== '');
      let who: unknown;
      try {
        who = first ? (JSON.parse(first) as { annotator?: unknown }).annotator : undefined;
      } catch {
        who = undefined;
      }
      if (who === annotator) {
        chosen = name;
        break;
      }
    }
  }
  const file = path.join(dir, chosen ?? own);
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const lines = text === undefined || text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const parsed: JsonlLine<unknown>[] = [];
  for (const [i, l] of lines.entries()) {
    if (l.trim() === '') continue;
    try {
      parsed.push({ value: JSON.parse(l), line: i + 1 });
    } catch (e) {
      throw new JunoError('E_INPUT_FORMAT', `line ${i + 1} is not JSON: ${(e as Error).message}`, {
        location: { file, line: i + 1 },
        hint: 'one JSON object per line (docs/formats.md, "Annotations"); fix or remove the line',
        cause: e,
      });
    }
  }
  const set = parsed.length > 0 ? parseAnnotations(parsed, file) : undefined;
  if (set && set.annotator !== annotator) {
    throw new JunoError(
      'E_LABELS',
      `${path.basename(file)} holds the labels of "${set.annotator}", not "${annotator}"`,
      {
        location: { file, field: 'annotator' },
        hint: `rename the file after its annotator (${set.annotator}.jsonl), or give --annotator ${set.annotator}`,
      },
    );
  }
  const lineOf = new Map<string, number>();
  for (const p of parsed) lineOf.set((p.value as Annotation).instance, p.line - 1);
  return {
    annotator,
    file,
    exists: text !== undefined,
    lines,
    lineOf,
    annotations: new Map((set?.annotations ?? []).map((a) => [a.instance, a])),
  };
}

const FIELDS = [...LABEL_DIMENSIONS, 'diagnosis'] as const;

/**
 * Pure: the file after `incoming` (this annotator's labels of some
 * instances) is merged in. An instance already labelled keeps its line when
 * nothing differs, else its line is replaced in place (each changed field
 * listed); a new one is appended, in id order. The same incoming labels
 * twice give the same text: an import or record repeated changes nothing.
 */
export function planAnnotationUpdate(current: AnnotationFile, incoming: readonly Annotation[]): AnnotationUpdate {
  const lines = [...current.lines];
  const added: Annotation[] = [];
  const changes: AnnotationChange[] = [];
  const unchanged: string[] = [];
  for (const a of incoming) {
    if (a.annotator !== current.annotator)
      throw new JunoError('E_INTERNAL', `an annotation of ${a.annotator} cannot go into ${current.annotator}'s file`);
    const before = current.annotations.get(a.instance);
    if (!before) {
      added.push(a);
      continue;
    }
    const fields = FIELDS.flatMap((f) => {
      const from = before[f] ?? '';
      const to = a[f] ?? '';
      return from.trim() === to.trim() ? [] : [{ field: f, from, to }];
    });
    if (fields.length === 0) unchanged.push(a.instance);
    else {
      changes.push({ instance: a.instance, fields });
      lines[current.lineOf.get(a.instance)!] = formatAnnotationLine(a);
    }
  }
  added.sort((x, y) => compareCodePoints(x.instance, y.instance));
  for (const a of added) lines.push(formatAnnotationLine(a));
  const changed = added.length > 0 || changes.length > 0;
  const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
  return {
    file: current.file,
    text,
    changed,
    added: added.map((a) => a.instance),
    changes,
    unchanged,
  };
}

/** One line in the field order the annotation files are written in (docs/formats.md). */
function formatAnnotationLine(a: Annotation): string {
  const out: Record<string, string> = { instance: a.instance, annotator: a.annotator };
  for (const f of FIELDS) {
    const v = a[f];
    if (v !== undefined && !(f === 'diagnosis' && v.trim() === '')) out[f] = v;
  }
  return JSON.stringify(out);
}

/** Write the update when it changes something; returns whether it wrote. */
export async function writeAnnotationFile(update: AnnotationUpdate): Promise<boolean> {
  if (!update.changed) return false;
  await writeFileAtomic(update.file, update.text);
  return true;
}
