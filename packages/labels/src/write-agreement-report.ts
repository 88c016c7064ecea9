import path from 'node:path';
import {
  formatJson,
  OutputSet,
  stableStringify,
  validateOrThrow,
  writeJsonAtomic,
  type AgreementGate,
  type AgreementReport,
  type FinalLabels,
} from '@junobench/core';
import { judgeAgreementGate } from './compute-agreement.js';
import { formatAgreementReport } from './format-agreement.js';

/** File names inside the labels output folder (`curated/labels/`). */
export const LABELS_FILES = {
  agreementJson: 'agreement.json',
  agreementMarkdown: 'agreement.md',
  finalLabels: 'final-labels.jsonl',
} as const;

export interface WriteAgreementOptions {
  /** Final labels to write beside the report (`final-labels.jsonl`, one line per instance). */
  finalLabels?: readonly FinalLabels[];
  /** The gate stated in the Markdown report. */
  minKappa?: number;
  /** The gate with its source: its verdict goes into agreement.json (`gate`) and agreement.md. */
  gate?: AgreementGate;
}

/**
 * Write the agreement report into `dir` (e.g. `curated/labels/`):
 * `agreement.json` (schemas/agreement-report.schema.json), `agreement.md`, and
 * `final-labels.jsonl` when final labels are given. The files appear together
 * or not at all. Returns the written paths, relative to `dir`.
 */
export async function writeAgreementReport(
  dir: string,
  report: AgreementReport,
  options: WriteAgreementOptions = {},
): Promise<string[]> {
  const judged: AgreementReport = options.gate ? { ...report, gate: judgeAgreementGate(report, options.gate) } : report;
  validateOrThrow('agreement-report', judged, { file: path.join(dir, LABELS_FILES.agreementJson) }, 'E_INTERNAL');
  const files: { rel: string; data: string }[] = [
    { rel: LABELS_FILES.agreementJson, data: formatJson(judged) },
    {
      rel: LABELS_FILES.agreementMarkdown,
      data: formatAgreementReport(report, {
        ...(options.minKappa !== undefined ? { minKappa: options.minKappa } : {}),
        ...(options.gate ? { gate: options.gate } : {}),
      }),
    },
  ];
  if (options.finalLabels) {
    for (const [i, f] of options.finalLabels.entries())
      validateOrThrow('final-labels', f, { file: path.join(dir, LABELS_FILES.finalLabels), line: i + 1 }, 'E_INTERNAL');
    files.push({
      rel: LABELS_FILES.finalLabels,
      data: options.finalLabels.map((f) => `${stableStringify(f)}\n`).join(''),
    });
  }
  await OutputSet.run(async (outputs) => {
    for (const f of files) await (await outputs.open(path.join(dir, f.rel))).write(f.data);
  });
  return files.map((f) => f.rel);
}

/**
 * Write `labels agreement --json <file>` (schemas/agreement-report.schema.json), checked first like
 * writeAgreementReport: a report that drifted from its documented format is an internal error (exit 70)
 * and no file, never a file the user's tools then misread.
 */
export async function writeAgreementJson(file: string, report: AgreementReport): Promise<void> {
  await writeJsonAtomic(file, report, { schema: 'agreement-report' });
}
