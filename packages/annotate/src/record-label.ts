import path from 'node:path';
import { JunoError, LABEL_DIMENSIONS, listInstanceIds, type Annotation, type LabelDimension } from '@junobench/core';
import type { AnnotationUpdate } from '@junobench/labels';

export interface RecordLabelOptions {
  annotationsDir: string;
  instancesDir: string;
  instance: string;
  annotator: string;
  labels: Record<LabelDimension, string>;
  diagnosis?: string;
  /** The flag each dimension came from, for messages (default: the dimension's name). */
  flags?: Partial<Record<LabelDimension, string>>;
}

/**
 * `labels record`: one annotator's labels of one instance, into their file
 * of raw/annotations (a line added, or replaced with each change listed;
 * the same labels again change nothing). Every wrong value is reported at once.
 */
export async function recordLabel(o: RecordLabelOptions): Promise<{ update: AnnotationUpdate; written: boolean }> {
  const { annotatorFileName, checkLabelValue, planAnnotationUpdate, readAnnotationFile, writeAnnotationFile } =
    await import('@junobench/labels');
  annotatorFileName(o.annotator);
  if (!(await listInstanceIds(o.instancesDir)).includes(o.instance)) {
    throw new JunoError('E_USAGE', `no instance "${o.instance}" in ${o.instancesDir}`, {
      location: { file: path.join(o.instancesDir, o.instance) },
      hint: 'give the id of an instance folder (junobench add makes drafts; --instances <dir> for another folder)',
    });
  }
  const problems = LABEL_DIMENSIONS.flatMap((d) => {
    const m = checkLabelValue(d, o.labels[d]);
    return m ? [`${o.flags?.[d] ?? d}: ${m}`] : [];
  });
  if (problems.length > 0) {
    throw new JunoError('E_LABELS', `${problems.length === 1 ? problems[0] : `\n  - ${problems.join('\n  - ')}`}`, {
      hint: 'use the exact vocabulary values (schemas/taxonomy.schema.json; `junobench labels sheet` lists them as dropdowns)',
    });
  }
  const annotation: Annotation = {
    instance: o.instance,
    annotator: o.annotator,
    ...o.labels,
    ...(o.diagnosis !== undefined && o.diagnosis.trim() !== '' ? { diagnosis: o.diagnosis } : {}),
  };
  const update = planAnnotationUpdate(await readAnnotationFile(o.annotationsDir, o.annotator), [annotation]);
  return { update, written: await writeAnnotationFile(update) };
}
