import path from 'node:path';
import { JunoError, LABEL_DIMENSIONS, listInstanceIds, type Annotation, type LabelDimension } from '@junobench/core';
import type { AnnotationUpdate } from '@junobench/labels';
import { REVIEWED, SHEET_COLUMNS, SHEET_NAMES, type SheetColumnKey } from './plan-label-sheet.js';
import { readLabelSheet } from './read-label-sheet.js';

export interface ImportLabelSheetOptions {
  file: string;
  annotator: string;
  /** raw/annotations: only `<annotator>`'s file there is read and written. */
  annotationsDir: string;
  /** raw/instances: every labelled id must be an instance there. */
  instancesDir: string;
  /** Check and report, write nothing. */
  dryRun?: boolean;
}

export interface ImportLabelSheetResult {
  annotator: string;
  update: AnnotationUpdate;
  written: boolean;
  /** Rows left out because "reviewed" is not yes. */
  notReviewed: { row: number; id: string }[];
}

interface SheetProblem {
  row: number;
  column: SheetColumnKey;
  message: string;
}

/**
 * `labels import`: the rows of a label sheet the annotator marked reviewed
 * become their lines in raw/annotations (only their file; other annotators'
 * files are never read for labels, written or touched). Every problem is
 * collected and reported at once, each with its sheet, row and column; a
 * sheet with any problem writes nothing. Importing the same sheet twice
 * changes nothing the second time.
 */
export async function importLabelSheet(o: ImportLabelSheetOptions): Promise<ImportLabelSheetResult> {
  const { annotatorFileName, checkLabelValue, planAnnotationUpdate, readAnnotationFile, writeAnnotationFile } =
    await import('@junobench/labels');
  annotatorFileName(o.annotator);
  const sheet = await readLabelSheet(o.file);
  if (sheet.annotator !== undefined && sheet.annotator !== o.annotator) {
    throw new JunoError(
      'E_USAGE',
      `this sheet was made for annotator "${sheet.annotator}", not "${o.annotator}": importing it would put ${sheet.annotator}'s labels under ${o.annotator}'s name`,
      {
        location: { file: o.file, field: `${SHEET_NAMES.about}!B1` },
        hint: `junobench labels import ${path.basename(o.file)} --annotator ${sheet.annotator} (or make ${o.annotator} a sheet of their own: junobench labels sheet --annotator ${o.annotator})`,
      },
    );
  }
  const known = new Set(await listInstanceIds(o.instancesDir));
  const problems: SheetProblem[] = [];
  const notReviewed: ImportLabelSheetResult['notReviewed'] = [];
  const annotations: Annotation[] = [];
  const seen = new Map<string, number>();
  for (const { row, cells } of sheet.rows) {
    const id = cells.instance;
    const reviewed = cells.reviewed?.toLowerCase();
    if (reviewed !== undefined && reviewed !== REVIEWED.yes && reviewed !== REVIEWED.no) {
      problems.push({ row, column: 'reviewed', message: `"${cells.reviewed}" is neither yes nor no` });
      continue;
    }
    if (reviewed !== REVIEWED.yes) {
      notReviewed.push({ row, id: id ?? '' });
      continue;
    }
    if (id === undefined) {
      problems.push({ row, column: 'instance', message: 'no instance id in a row marked reviewed' });
      continue;
    }
    if (!known.has(id)) {
      problems.push({
        row,
        column: 'instance',
        message: `no instance "${id}" in ${path.relative(process.cwd(), o.instancesDir) || o.instancesDir}`,
      });
      continue;
    }
    const first = seen.get(id);
    if (first !== undefined) {
      problems.push({
        row,
        column: 'instance',
        message: `${id} is labelled twice (also in row ${first}); keep one row`,
      });
      continue;
    }
    seen.set(id, row);
    const labels: Partial<Record<LabelDimension, string>> = {};
    for (const d of LABEL_DIMENSIONS) {
      const value = cells[d];
      if (value === undefined) {
        problems.push({ row, column: d, message: 'empty: label it, or set "reviewed" to no to leave the row out' });
        continue;
      }
      const wrong = checkLabelValue(d, value);
      if (wrong) problems.push({ row, column: d, message: wrong });
      else labels[d] = value;
    }
    if (LABEL_DIMENSIONS.some((d) => labels[d] === undefined)) continue;
    annotations.push({
      instance: id,
      annotator: o.annotator,
      ...(labels as Record<LabelDimension, string>),
      ...(cells.diagnosis !== undefined ? { diagnosis: cells.diagnosis } : {}),
    });
  }
  if (problems.length > 0) throw sheetError(o.file, sheet.columns, problems);
  const update = planAnnotationUpdate(await readAnnotationFile(o.annotationsDir, o.annotator), annotations);
  const written = o.dryRun ? false : await writeAnnotationFile(update);
  return { annotator: o.annotator, update, written, notReviewed };
}

function sheetError(
  file: string,
  columns: Partial<Record<SheetColumnKey, string>>,
  problems: readonly SheetProblem[],
): JunoError {
  const where = (p: SheetProblem) =>
    `sheet "${SHEET_NAMES.labels}", row ${p.row}, column ${columns[p.column] ?? '?'} (${SHEET_COLUMNS.find((c) => c.key === p.column)!.header})`;
  const first = problems[0]!;
  const list = problems.map((p) => `  - ${where(p)}: ${p.message}`).join('\n');
  return new JunoError(
    'E_LABELS',
    `${problems.length} problem${problems.length === 1 ? '' : 's'} in the label sheet; nothing was imported:\n${list}`,
    {
      location: { file, line: first.row, field: `${columns[first.column] ?? '?'}${first.row}` },
      hint: 'fix each cell (the dropdowns list the exact vocabulary values; the vocabularies sheet has them all) and import again',
    },
  );
}
