import path from 'node:path';
import { readAnnotationsOf } from './read-annotations-of.js';
import {
  findReportPages,
  planLabelSheet,
  readDeprecatedIds,
  readInstances,
  type LabelSheetPlan,
} from './plan-label-sheet.js';
import { writeLabelSheet } from './write-label-sheet.js';

export interface MakeLabelSheetOptions {
  annotator: string;
  /** The .xlsx to write. */
  out: string;
  instancesDir: string;
  annotationsDir: string;
  deprecatedFile: string;
  /** The HTML report: each row links to its instance's page there (relative to the sheet). */
  reportDir: string;
  all?: boolean;
}

/** `labels sheet`: read the instances and the annotator's labels so far, plan the rows, write the workbook. */
export async function makeLabelSheet(o: MakeLabelSheetOptions): Promise<{ plan: LabelSheetPlan; bytes: number }> {
  const instances = await readInstances(o.instancesDir);
  const labelled = await readAnnotationsOf(o.annotationsDir, o.annotator);
  const pages = await findReportPages(
    o.reportDir,
    o.out,
    instances.map((i) => i.id),
  );
  const plan = planLabelSheet({
    annotator: o.annotator,
    instances,
    labelled,
    deprecated: await readDeprecatedIds(o.deprecatedFile),
    reportHref: (id) => pages.get(id),
    ...(o.all ? { all: true } : {}),
  });
  const bytes = await writeLabelSheet(path.resolve(o.out), plan);
  return { plan, bytes };
}
