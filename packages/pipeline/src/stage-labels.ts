import path from 'node:path';
import {
  describeAgreementGate,
  JunoError,
  listInstanceIds,
  readAgreementGate,
  readInstance,
  type Labels,
} from '@junobench/core';

// The stage's outputs are needed to plan a build, which must
// not load @junobench/labels (its charts pull in vega and sharp) when nothing
// is to be done: copied here, typed by the package's own constants so the type
// check fails when they drift.
const LABELS_FILES: (typeof import('@junobench/labels'))['LABELS_FILES'] = {
  agreementJson: 'agreement.json',
  agreementMarkdown: 'agreement.md',
  finalLabels: 'final-labels.jsonl',
};
import type { Stage } from './run-build.js';

export interface LabelsStageOptions {
  annotationsDir: string;
  instancesDir: string;
  outDir: string;
  /** raw/release.json: the agreement gate's one setting (minKappa; default 0.9). */
  metadataFile: string;
  /** --min-kappa: the gate for this run only, over the setting (the summary says so). */
  minKappa?: number;
}

/**
 * Inter-annotator agreement over raw/annotations and the final labels: the
 * agreed value, else the adjudicated one (else the instance's own label).
 * A disagreement nothing resolves, or a label instance.json gives otherwise
 * than the annotations, stops the build with the list of them. The gate is
 * raw/release.json's minKappa (the one setting; `--min-kappa` overrides it
 * for one run) and its verdict is written into agreement.json for the report.
 */
export function createLabelsStage(o: LabelsStageOptions): Stage {
  return {
    name: 'labels',
    description: "annotators' agreement (Cohen's kappa, Krippendorff's alpha) and final labels",
    inputs: [o.annotationsDir, o.instancesDir, o.metadataFile],
    outputs: [
      path.join(o.outDir, LABELS_FILES.agreementJson),
      path.join(o.outDir, LABELS_FILES.agreementMarkdown),
      path.join(o.outDir, LABELS_FILES.finalLabels),
    ],
    params: { minKappaFlag: o.minKappa ?? null },
    async run(io) {
      const { computeAgreement, judgeAgreementGate, readAnnotationFolder, resolveFinalLabels, writeAgreementReport } =
        await import('@junobench/labels');
      const gate = await readAgreementGate(io.abs(o.metadataFile), o.minKappa);
      const { sets, adjudications } = await readAnnotationFolder(io.abs(o.annotationsDir));
      if (sets.length === 0) {
        throw new JunoError('E_LABELS', `no annotator files in ${o.annotationsDir}`, {
          hint: 'add one <annotator>.jsonl per annotator (junobench labels sheet / labels import, or labels record; docs/formats.md, "Annotations")',
        });
      }
      // Drafts (`junobench add`) have suggestions, not labels: they are not labelled yet. An instance that is not a
      // draft takes its labels from the annotations, with or without labels of its own in instance.json.
      const ids: string[] = [];
      const drafts: string[] = [];
      const instanceLabels = new Map<string, Labels>();
      for (const id of await listInstanceIds(io.abs(o.instancesDir))) {
        const instance = await readInstance(path.join(io.abs(o.instancesDir), id));
        if (instance.status === 'draft') {
          drafts.push(id);
          continue;
        }
        ids.push(id);
        if (instance.labels) instanceLabels.set(id, instance.labels);
      }
      const report = computeAgreement(sets);
      const finalLabels = resolveFinalLabels(sets, adjudications, ids, { instanceLabels });
      await writeAgreementReport(io.abs(o.outDir), report, { finalLabels, gate: { ...gate, file: o.metadataFile } });
      const verdict = judgeAgreementGate(report, gate);
      const kappas = report.dimensions
        .map((d) => `${d.dimension} ${d.kappa === null ? 'n/a' : d.kappa.toFixed(3)}`)
        .join(', ');
      const shown = describeAgreementGate(gate, o.metadataFile);
      return {
        summary:
          `${finalLabels.length} instances labelled${drafts.length > 0 ? ` (and ${drafts.length} draft${drafts.length === 1 ? '' : 's'} apart, not labelled until ready: ${drafts.join(', ')})` : ''}; ` +
          `Cohen's kappa ${kappas}; gate ${shown}: ${verdict.passed ? 'passed' : `FAILED (${verdict.below.map((w) => w.dimension).join(', ')})`}`,
        failed: !verdict.passed,
        ...(gate.source === 'flag'
          ? {
              warnings: [
                `--min-kappa ${gate.minKappa} overrides the agreement gate for this build only (the setting is ${gate.setting}, minKappa in ${o.metadataFile}); the report shows the gate used`,
              ],
            }
          : {}),
      };
    },
  };
}
