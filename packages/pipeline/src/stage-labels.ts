import path from 'node:path';
import { JunoError, listInstanceIds, readInstance, type Labels } from '@junobench/core';

// The stage's outputs and default gate are needed to plan a build, which must
// not load @junobench/labels (its charts pull in vega and sharp) when nothing
// is to be done: copied here, typed by the package's own constants so the type
// check fails when they drift.
const LABELS_FILES: (typeof import('@junobench/labels'))['LABELS_FILES'] = {
  agreementJson: 'agreement.json',
  agreementMarkdown: 'agreement.md',
  finalLabels: 'final-labels.jsonl',
};
const DEFAULT_MIN_KAPPA: (typeof import('@junobench/labels'))['DEFAULT_MIN_KAPPA'] = 0.9;
import type { Stage } from './run-build.js';

export interface LabelsStageOptions {
  annotationsDir: string;
  instancesDir: string;
  outDir: string;
  minKappa?: number;
}

/**
 * Inter-annotator agreement over raw/annotations and the final labels: the
 * agreed value, else the adjudicated one (else the instance's own label). A
 * disagreement nothing resolves stops the build with the list of them.
 */
export function createLabelsStage(o: LabelsStageOptions): Stage {
  const minKappa = o.minKappa ?? DEFAULT_MIN_KAPPA;
  return {
    name: 'labels',
    description: "annotators' agreement (Cohen's kappa, Krippendorff's alpha) and final labels",
    inputs: [o.annotationsDir, o.instancesDir],
    outputs: [
      path.join(o.outDir, LABELS_FILES.agreementJson),
      path.join(o.outDir, LABELS_FILES.agreementMarkdown),
      path.join(o.outDir, LABELS_FILES.finalLabels),
    ],
    params: { minKappa },
    async run(io) {
      const { computeAgreement, findWeakDimensions, readAnnotationFolder, resolveFinalLabels, writeAgreementReport } =
        await import('@junobench/labels');
      const { sets, adjudications } = await readAnnotationFolder(io.abs(o.annotationsDir));
      if (sets.length === 0) {
        throw new JunoError('E_LABELS', `no annotator files in ${o.annotationsDir}`, {
          hint: 'add one <annotator>.jsonl per annotator (see docs/formats.md, "Annotations")',
        });
      }
      // Drafts (`junobench add`) have suggestions, not labels: they are not labelled yet.
      const ids: string[] = [];
      const instanceLabels = new Map<string, Labels>();
      for (const id of await listInstanceIds(io.abs(o.instancesDir))) {
        const instance = await readInstance(path.join(io.abs(o.instancesDir), id));
        if (instance.status === 'draft' || !instance.labels) continue;
        ids.push(id);
        instanceLabels.set(id, instance.labels);
      }
      const report = computeAgreement(sets);
      const finalLabels = resolveFinalLabels(sets, adjudications, ids, { instanceLabels });
      await writeAgreementReport(io.abs(o.outDir), report, { finalLabels, minKappa });
      const weak = findWeakDimensions(report, minKappa);
      const kappas = report.dimensions
        .map((d) => `${d.dimension} ${d.kappa === null ? 'n/a' : d.kappa.toFixed(3)}`)
        .join(', ');
      return {
        summary: `${finalLabels.length} instances labelled; Cohen's kappa ${kappas}${weak.length > 0 ? `; below ${minKappa}: ${weak.map((w) => w.dimension).join(', ')}` : ''}`,
        failed: weak.length > 0,
      };
    },
  };
}
