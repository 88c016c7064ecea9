import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  LABEL_DIMENSIONS,
  listInstanceIds,
  readInstance,
  type Annotation,
  type Instance,
  type LabelDimension,
} from '@junobench/core';

/** The label sheet's columns, in order (`labels import` finds them by header, so a reordered sheet still reads). */
export const SHEET_COLUMNS = [
  { key: 'instance', header: 'instance', width: 18 },
  { key: 'status', header: 'status', width: 9 },
  { key: 'crash', header: 'crash', width: 48 },
  { key: 'report', header: 'report page', width: 22 },
  { key: 'library', header: 'library cause', width: 18 },
  { key: 'crashType', header: 'crash type', width: 24 },
  { key: 'rootCause', header: 'root cause', width: 22 },
  { key: 'pipelineStage', header: 'pipeline stage', width: 22 },
  { key: 'diagnosis', header: 'diagnosis', width: 60 },
  { key: 'reviewed', header: 'reviewed', width: 11 },
  { key: 'suggestions', header: 'suggested by junobench', width: 60 },
] as const;
export type SheetColumnKey = (typeof SHEET_COLUMNS)[number]['key'];

/** The sheets of a label workbook. */
export const SHEET_NAMES = { labels: 'labels', vocabularies: 'vocabularies', about: 'about' } as const;

/** The values of the "reviewed" column: a row is imported only when it says yes. */
export const REVIEWED = { yes: 'yes', no: 'no' } as const;

export interface LabelSheetRow {
  id: string;
  /** draft (`junobench add`, not in the benchmark yet) or ready. */
  status: 'draft' | 'ready';
  crash: string;
  /** The instance's report page, relative to the sheet's folder; unset when no report shows it yet. */
  reportHref?: string;
  values: Partial<Record<LabelDimension | 'diagnosis', string>>;
  /** The dimensions whose cell holds a suggestion, not the annotator's label. */
  suggested: LabelDimension[];
  reviewed: 'yes' | 'no';
  /** The suggestions with their confidence and evidence, for reading. */
  suggestions: string;
}

export interface LabelSheetPlan {
  annotator: string;
  rows: LabelSheetRow[];
  /** Instances this annotator labelled already (left out unless `all`). */
  labelled: number;
  /** Deprecated instances, never listed. */
  deprecated: number;
}

export interface PlanLabelSheetInput {
  annotator: string;
  instances: readonly Instance[];
  /** This annotator's labels so far, by instance. */
  labelled: ReadonlyMap<string, Annotation>;
  deprecated: ReadonlySet<string>;
  /** The report page of an instance, relative to the sheet, when it exists. */
  reportHref?: (id: string) => string | undefined;
  /** List the instances already labelled too, with their labels (reviewed yes). */
  all?: boolean;
}

/**
 * Pure: one row per instance that needs this annotator's labels (every
 * instance not deprecated and not yet labelled by them; with `all`, the
 * labelled ones too, filled with their labels). A draft's suggested labels
 * (instance.json `suggestedLabels`, from `junobench add`) are pre-filled and
 * marked as suggestions: the row says reviewed "no" until the annotator makes
 * the labels theirs.
 */
export function planLabelSheet(input: PlanLabelSheetInput): LabelSheetPlan {
  const rows: LabelSheetRow[] = [];
  let labelled = 0;
  let deprecated = 0;
  for (const inst of input.instances) {
    if (input.deprecated.has(inst.id)) {
      deprecated++;
      continue;
    }
    const own = input.labelled.get(inst.id);
    if (own) labelled++;
    if (own && !input.all) continue;
    const s = inst.suggestedLabels;
    const suggestions = LABEL_DIMENSIONS.flatMap((d) => {
      const x = s?.[d];
      return x
        ? [`${d}: ${x.value} (confidence ${x.confidence.toFixed(2)}; ${x.evidence.slice(0, 2).join('; ')})`]
        : [];
    }).join('\n');
    const values: LabelSheetRow['values'] = {};
    const suggested: LabelDimension[] = [];
    if (own) {
      for (const d of LABEL_DIMENSIONS) values[d] = own[d];
      if (own.diagnosis) values.diagnosis = own.diagnosis;
    } else {
      for (const d of LABEL_DIMENSIONS) {
        const v = s?.[d]?.value;
        if (v !== undefined) {
          values[d] = v;
          suggested.push(d);
        }
      }
    }
    const href = input.reportHref?.(inst.id);
    rows.push({
      id: inst.id,
      status: inst.status === 'draft' ? 'draft' : 'ready',
      crash: `${inst.crash.ename}: ${firstLine(inst.crash.evalue)} (code cell ${inst.crash.cell} of reproduced.ipynb)`,
      ...(href ? { reportHref: href } : {}),
      values,
      suggested,
      reviewed: own ? REVIEWED.yes : REVIEWED.no,
      suggestions,
    });
  }
  return { annotator: input.annotator, rows, labelled, deprecated };
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** Every instance under a folder, read and checked (drafts included). */
export async function readInstances(instancesDir: string): Promise<Instance[]> {
  const out: Instance[] = [];
  for (const id of await listInstanceIds(instancesDir)) out.push(await readInstance(path.join(instancesDir, id)));
  return out;
}

/** The ids of raw/deprecated.json (`{ "instances": [ { "id", … } ] }`); none when the file is absent. */
export async function readDeprecatedIds(file: string): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Set();
    throw e;
  }
  let list: unknown;
  try {
    list = (JSON.parse(text) as { instances?: unknown }).instances;
  } catch (e) {
    throw new JunoError('E_INPUT_FORMAT', `not valid JSON: ${(e as Error).message}`, { location: { file }, cause: e });
  }
  if (!Array.isArray(list) || list.some((x) => typeof (x as { id?: unknown })?.id !== 'string'))
    throw new JunoError('E_INPUT_FORMAT', 'expected { "instances": [ { "id": "…", … } ] }', {
      location: { file, field: 'instances' },
    });
  return new Set(list.map((x) => (x as { id: string }).id));
}

/** `<reportDir>/instances/<id>.html` relative to the sheet's folder, when the page exists. */
export async function findReportPages(
  reportDir: string,
  sheetFile: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const id of ids) {
    const page = path.join(reportDir, 'instances', `${id}.html`);
    if (
      await stat(page).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      out.set(
        id,
        path
          .relative(path.dirname(path.resolve(sheetFile)), page)
          .split(path.sep)
          .join('/'),
      );
  }
  return out;
}
