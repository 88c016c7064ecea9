import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import {
  checkOutputPaths,
  compareCodePoints,
  describeAgreementGate,
  formatGateOverride,
  JunoError,
  RAISE_KAPPA_HINT,
  readAgreementGate,
  writeFileAtomic,
  writeJsonAtomic,
  writeJsonl,
  type InputTree,
  type OutputPath,
} from '@junobench/core';
import type { AdjudicationLine, AnnotationSet } from '@junobench/labels';
import type { CliContext } from '../context.js';
import { formatTable } from './format.js';
import { registerLabelSheets } from './labels-sheets.js';

// @junobench/labels is imported inside the actions (CONTRIBUTING.md: imports in the CLI), so other
// verbs do not load it. The defaults the help texts show are copied here; their types are the
// package's literal types, so a change there fails the type check until this copy follows.
type Labels = typeof import('@junobench/labels');
const ADJUDICATION_FILE: Labels['ADJUDICATION_FILE'] = 'adjudicated.jsonl';
const DEFAULT_AGREEMENT_SEED: Labels['DEFAULT_AGREEMENT_SEED'] = 'junobench';
const DEFAULT_BOOTSTRAP_RESAMPLES: Labels['DEFAULT_BOOTSTRAP_RESAMPLES'] = 2000;
const DEFAULT_MIN_KAPPA: Labels['DEFAULT_MIN_KAPPA'] = 0.9;

const DEFAULT_ANNOTATIONS_DIR = 'raw/annotations';
const DEFAULT_METADATA_FILE = 'raw/release.json';

export function registerLabelsCommand(program: Command, ctx: CliContext): void {
  const labels = program
    .command('labels')
    .description('Annotations: validation, inter-annotator agreement, final labels.');

  labels
    .command('agreement')
    .description(
      "Cohen's kappa (per pair, with bootstrap and asymptotic 95% CIs) and Krippendorff's alpha per label dimension, weakest categories and disagreements. " +
        'Exit 1 when a dimension is below --min-kappa.',
    )
    .argument(
      '[files...]',
      `annotators' .jsonl files, or folders of them (default: ${DEFAULT_ANNOTATIONS_DIR}); ${ADJUDICATION_FILE} is skipped`,
    )
    .option('--json <file>', 'also write the full report as JSON (schemas/agreement-report.schema.json)')
    .option('--markdown <file>', 'also write the report as Markdown')
    .option(
      '--min-kappa <k>',
      `the agreement gate for this run only: fail (exit 1) when a dimension's kappa is below it (default: minKappa in --metadata, else ${DEFAULT_MIN_KAPPA}, the paper's)`,
    )
    .option('--metadata <file>', 'where the agreement gate is set (minKappa)', DEFAULT_METADATA_FILE)
    .option('--seed <seed>', 'bootstrap seed', DEFAULT_AGREEMENT_SEED)
    .option('--bootstrap <n>', 'bootstrap resamples (0 = off)', String(DEFAULT_BOOTSTRAP_RESAMPLES))
    .option('--max-disagreements <n>', 'print at most this many disagreements (the files get all)', '50')
    .action(
      async (
        files: string[],
        opts: {
          json?: string;
          markdown?: string;
          minKappa?: string;
          metadata: string;
          seed: string;
          bootstrap: string;
          maxDisagreements: string;
        },
      ) => {
        const flag =
          opts.minKappa !== undefined ? parseNumber(opts.minKappa, '--min-kappa', { min: -1, max: 1 }) : undefined;
        const metadataFile = path.resolve(ctx.cwd, opts.metadata);
        const gate = await readAgreementGate(metadataFile, flag);
        const override = formatGateOverride(gate, opts.metadata);
        if (override) ctx.err(override);
        const bootstrap = parseNumber(opts.bootstrap, '--bootstrap', { min: 0, integer: true });
        const maxDisagreements = parseNumber(opts.maxDisagreements, '--max-disagreements', { min: 0, integer: true });
        await checkAnnotationOutputs(ctx, files, [
          ...(opts.json ? [{ path: path.resolve(ctx.cwd, opts.json), flag: '--json' }] : []),
          ...(opts.markdown ? [{ path: path.resolve(ctx.cwd, opts.markdown), flag: '--markdown' }] : []),
        ]);
        const { computeAgreement, DIMENSION_TITLES, formatAgreementReport, judgeAgreementGate, writeAgreementJson } =
          await import('@junobench/labels');
        const { sets, skipped } = await loadAnnotations(ctx, files);
        for (const s of skipped)
          ctx.err(`note: skipping ${s} (adjudications are not an annotator; see \`junobench labels resolve\`)`);
        const report = computeAgreement(sets, { seed: opts.seed, bootstrap });
        const shownGate = { ...gate, file: opts.metadata };
        ctx.out(formatAgreementReport(report, { gate: shownGate, maxDisagreements }));
        const verdict = judgeAgreementGate(report, gate);
        if (opts.json) await writeAgreementJson(path.resolve(ctx.cwd, opts.json), { ...report, gate: verdict });
        if (opts.markdown)
          await writeFileAtomic(
            path.resolve(ctx.cwd, opts.markdown),
            formatAgreementReport(report, { gate: shownGate }),
          );
        if (!verdict.passed) {
          ctx.err(
            `agreement below the gate, ${describeAgreementGate(gate, opts.metadata)}: ${verdict.below.map((d) => `${DIMENSION_TITLES[d.dimension]} (κ = ${d.kappa === null ? 'undefined' : d.kappa.toFixed(3)})`).join(', ')}`,
          );
          ctx.err(`hint: ${RAISE_KAPPA_HINT}`);
          ctx.exitCode = 1;
        }
      },
    );

  labels
    .command('check')
    .alias('validate')
    .description('Validate annotation files: schema, vocabularies (with "did you mean"), one line per instance.')
    .argument('[files...]', `.jsonl files or folders (default: ${DEFAULT_ANNOTATIONS_DIR})`)
    .action(async (files: string[]) => {
      const { sets, adjudications } = await loadAnnotations(ctx, files);
      for (const s of sets)
        ctx.out(`${s.file ?? s.annotator}: ${s.annotations.length} annotations by ${s.annotator}, all valid`);
      for (const [file, lines] of adjudications) ctx.out(`${file}: ${lines.length} adjudications, all valid`);
    });

  labels
    .command('resolve')
    .description(
      'Final labels: agreed values, else the adjudicated ones; fails (exit 2) listing every unresolved disagreement.',
    )
    .argument(
      '[files...]',
      `annotators' .jsonl files and ${ADJUDICATION_FILE}, or folders of them (default: ${DEFAULT_ANNOTATIONS_DIR})`,
    )
    .option('--adjudicated <file>', `the adjudication file (default: ${ADJUDICATION_FILE} among the inputs)`)
    .option(
      '-o, --output <file>',
      'write the final labels as JSONL (schemas/final-labels.schema.json) instead of printing them',
    )
    .action(async (files: string[], opts: { adjudicated?: string; output?: string }) => {
      if (opts.output)
        await checkAnnotationOutputs(
          ctx,
          files,
          [{ path: path.resolve(ctx.cwd, opts.output), flag: '-o' }],
          opts.adjudicated ? [path.resolve(ctx.cwd, opts.adjudicated)] : [],
        );
      const loaded = await loadAnnotations(ctx, files);
      const { readAdjudications, resolveFinalLabels } = await import('@junobench/labels');
      const adjudications = opts.adjudicated
        ? await readAdjudications(path.resolve(ctx.cwd, opts.adjudicated))
        : [...loaded.adjudications.values()].flat();
      const ids = [...new Set(loaded.sets.flatMap((s) => s.annotations.map((a) => a.instance)))].sort(
        compareCodePoints,
      );
      const final = resolveFinalLabels(loaded.sets, adjudications, ids);
      if (opts.output) {
        await writeJsonl(path.resolve(ctx.cwd, opts.output), final);
        ctx.out(`wrote final labels of ${final.length} instances to ${opts.output}`);
      } else {
        for (const f of final) ctx.out(JSON.stringify(f));
      }
    });

  registerLabelsSuggest(labels, ctx);
  registerLabelSheets(labels, ctx);
}

const DEFAULT_INSTANCES_DIR = 'raw/instances';
const SUGGEST_DIMENSIONS = ['library', 'crashType', 'rootCause', 'pipelineStage'] as const;

function registerLabelsSuggest(labels: Command, ctx: CliContext): void {
  labels
    .command('suggest')
    .description(
      'Suggest labels for crashes in the four dimensions (library cause, crash type, root cause, pipeline stage), each with a confidence and the evidence it rests on. ' +
        'With --eval, compare with the labels the crashes carry: per-dimension accuracy, confusion tables, and the dev/held-out split.',
    )
    .argument(
      '<targets...>',
      'a notebook (.ipynb, each saved error output), an instance id (looked up in --instances), or a pool of crash records (.jsonl)',
    )
    .option(
      '--json <file>',
      'write every suggestion (and the evaluation) as JSON (schemas/label-suggestion-report.schema.json)',
    )
    .option(
      '--eval',
      'score the suggestions against labelled crashes; the last line is "accuracy: library 0.xxx, crashType 0.xxx, rootCause 0.xxx, pipelineStage 0.xxx"',
    )
    .option('--split <side>', 'with --eval, score only one side of the seeded split: all, dev or held-out', 'all')
    .option('--split-seed <seed>', 'seed of the dev/held-out split (crashes are assigned by id)')
    .option('--held-out <fraction>', 'share of crashes held out, in [0, 1]')
    .option('--instances <dir>', 'where instance ids are looked up', DEFAULT_INSTANCES_DIR)
    .option('--show <n>', 'print the suggestions of at most this many crashes (the --json file gets all)', '20')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  junobench labels suggest pandas_1',
        '  junobench labels suggest raw/instances/NBspecific_1/original.ipynb --json suggestions.json',
        '  junobench pool import benchmark_desc.xlsx -o /tmp/b.jsonl && junobench labels suggest /tmp/b.jsonl --eval --split held-out',
      ].join('\n'),
    )
    .action(
      async (
        targets: string[],
        opts: {
          json?: string;
          eval?: boolean;
          split: string;
          splitSeed?: string;
          heldOut?: string;
          instances: string;
          show: string;
        },
      ) => {
        if (!['all', 'dev', 'held-out'].includes(opts.split)) {
          throw new JunoError('E_USAGE', `--split must be all, dev or held-out, got "${opts.split}"`, {
            location: { field: '--split' },
            hint: 'e.g. --split held-out',
          });
        }
        const show = parseNumber(opts.show, '--show', { min: 0, integer: true });
        if (opts.json)
          await checkOutputPaths({
            inputs: targets.filter((t) => /\.(ipynb|jsonl)$/.test(t)).map((t) => path.resolve(ctx.cwd, t)),
            trees: [{ path: path.resolve(ctx.cwd, opts.instances), what: '--instances' }],
            outputs: [{ path: path.resolve(ctx.cwd, opts.json), flag: '--json' }],
          });
        const { DEFAULT_SPLIT, suggestForTargets } = await import('@junobench/suggest');
        const split = {
          seed: opts.splitSeed ?? DEFAULT_SPLIT.seed,
          heldOutFraction:
            opts.heldOut !== undefined
              ? parseNumber(opts.heldOut, '--held-out', { min: 0, max: 1 })
              : DEFAULT_SPLIT.heldOutFraction,
        };
        const progress = ctx.progress('labels suggest');
        let report;
        try {
          report = await suggestForTargets({
            targets: targets.map((t) => (/\.(ipynb|jsonl)$/.test(t) ? path.resolve(ctx.cwd, t) : t)),
            instancesDir: path.resolve(ctx.cwd, opts.instances),
            eval: opts.eval === true,
            evaluate: opts.split as 'all' | 'dev' | 'held-out',
            split,
            onProgress: progress,
          });
        } finally {
          progress.done();
        }
        for (const c of report.crashes.slice(0, show)) {
          ctx.out(`${c.id} (${showPath(ctx.cwd, c.location)}): ${c.ename}: ${oneLine(c.evalue, 100)}`);
          ctx.out(
            formatTable(
              ['dimension', 'suggested', 'confidence', ...(c.labels ? ['labelled'] : []), 'evidence'],
              SUGGEST_DIMENSIONS.map((d) => {
                const s = c.suggestions[d];
                return [
                  d,
                  s.value,
                  s.confidence.toFixed(2),
                  ...(c.labels ? [c.labels[d] ?? '-'] : []),
                  oneLine(s.evidence.join('; '), 110),
                ];
              }),
            ),
          );
          ctx.out('');
        }
        if (report.crashes.length > show)
          ctx.out(
            `… and ${report.crashes.length - show} more crashes (--show <n> prints more; --json <file> writes them all)`,
          );
        ctx.out(`suggested labels for ${report.crashes.length} crash${report.crashes.length === 1 ? '' : 'es'}`);
        if (opts.json) {
          await writeJsonAtomic(path.resolve(ctx.cwd, opts.json), report, { schema: 'label-suggestion-report' });
          ctx.out(`wrote ${opts.json}`);
        }
        if (!opts.eval) return;
        const ev = report.evaluation!;
        ctx.out('');
        if (ev.crashes === 0) {
          ctx.out(
            `no labelled crash${opts.split === 'all' ? '' : ` on the ${opts.split} side of the split`}: nothing to compare with`,
          );
        } else {
          for (const d of SUGGEST_DIMENSIONS) {
            const e = ev.dimensions[d];
            if (e.total === 0) continue;
            ctx.out(
              `${d}: ${e.accuracy.toFixed(3)} (${e.hits}/${e.total}); confusion (rows: labelled, columns: suggested):`,
            );
            ctx.out(formatConfusionTable(e.confusion));
            ctx.out(
              `  by confidence: ${e.byConfidence
                .filter((b) => b.total > 0)
                .map((b) => `≥${b.atLeast.toFixed(1)} ${b.accuracy.toFixed(3)} (${b.hits}/${b.total})`)
                .join(', ')}`,
            );
            ctx.out('');
          }
          ctx.out(
            formatTable(
              ['split', 'crashes', ...SUGGEST_DIMENSIONS],
              (['dev', 'held-out'] as const).map((side) => {
                const a = ev.bySplit[side]!;
                return [side, String(a.crashes), ...SUGGEST_DIMENSIONS.map((d) => a[d].toFixed(3))];
              }),
            ),
          );
          ctx.out(
            `(split: seed ${report.split.seed}, ${report.split.heldOutFraction} held out, by crash id; evaluated: ${report.split.evaluated})`,
          );
        }
        ctx.out(
          `accuracy: ${SUGGEST_DIMENSIONS.map((d) => `${d} ${ev.dimensions[d].accuracy.toFixed(3)}`).join(', ')}`,
        );
      },
    );
}

function formatConfusionTable(confusion: Record<string, Record<string, number | undefined> | undefined>): string {
  const labelled = Object.keys(confusion).sort(compareCodePoints);
  const suggested = [...new Set(Object.values(confusion).flatMap((row) => Object.keys(row ?? {})))].sort(
    compareCodePoints,
  );
  return formatTable(
    ['labelled \\ suggested', ...suggested],
    labelled.map((l) => [l, ...suggested.map((p) => (confusion[l]?.[p] ? String(confusion[l]![p]) : '.'))]),
  );
}

/** A location under the working directory relative to it, anything else as it is. */
function showPath(cwd: string, location: string): string {
  const rel = path.relative(cwd, location);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? location : rel;
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Outputs never go into the annotations read (the folders given, or raw/annotations), nor over a file read. */
async function checkAnnotationOutputs(
  ctx: CliContext,
  files: readonly string[],
  outputs: OutputPath[],
  extraInputs: string[] = [],
): Promise<void> {
  const inputs = [...extraInputs];
  const trees: InputTree[] = [];
  for (const f of files.length > 0 ? files : [DEFAULT_ANNOTATIONS_DIR]) {
    const abs = path.resolve(ctx.cwd, f);
    if ((await stat(abs).catch(() => undefined))?.isDirectory()) trees.push({ path: abs, what: 'the annotations' });
    else inputs.push(abs);
  }
  await checkOutputPaths({ inputs, trees, outputs });
}

interface LoadedAnnotations {
  sets: AnnotationSet[];
  /** Adjudication files among the inputs, by path. */
  adjudications: Map<string, AdjudicationLine[]>;
  /** Adjudication files given as annotators' files (e.g. by a shell glob). */
  skipped: string[];
}

/** Files and folders → annotation sets; `adjudicated.jsonl` is read as adjudications. */
async function loadAnnotations(ctx: CliContext, inputs: readonly string[]): Promise<LoadedAnnotations> {
  const given = inputs.length > 0 ? inputs : [DEFAULT_ANNOTATIONS_DIR];
  const { assertDistinctAnnotators, readAdjudications, readAnnotationFolder, readAnnotations } =
    await import('@junobench/labels');
  const sets: AnnotationSet[] = [];
  const adjudications = new Map<string, AdjudicationLine[]>();
  const skipped: string[] = [];
  for (const input of given) {
    const abs = path.resolve(ctx.cwd, input);
    const isDir = await stat(abs).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (isDir) {
      const folder = await readAnnotationFolder(abs);
      sets.push(...folder.sets);
      if (folder.adjudications.length > 0) adjudications.set(path.join(abs, ADJUDICATION_FILE), folder.adjudications);
    } else if (path.basename(abs) === ADJUDICATION_FILE) {
      adjudications.set(abs, await readAdjudications(abs));
      skipped.push(input);
    } else {
      sets.push(await readAnnotations(abs));
    }
  }
  if (sets.length === 0) {
    throw new JunoError('E_USAGE', `no annotators' files among ${given.join(', ')}`, {
      hint: `give .jsonl files (one per annotator) or a folder of them, e.g. junobench labels agreement ${DEFAULT_ANNOTATIONS_DIR}`,
    });
  }
  assertDistinctAnnotators(sets);
  return { sets, adjudications, skipped };
}

function parseNumber(text: string, flag: string, range: { min?: number; max?: number; integer?: boolean }): number {
  const value = Number(text);
  const ok =
    text.trim() !== '' &&
    Number.isFinite(value) &&
    (!range.integer || Number.isInteger(value)) &&
    (range.min === undefined || value >= range.min) &&
    (range.max === undefined || value <= range.max);
  if (!ok) {
    const kind = range.integer ? 'a whole number' : 'a number';
    const bounds = [range.min !== undefined ? `≥ ${range.min}` : '', range.max !== undefined ? `≤ ${range.max}` : '']
      .filter(Boolean)
      .join(' and ');
    throw new JunoError('E_USAGE', `${flag} must be ${kind}${bounds ? ` ${bounds}` : ''}, got "${text}"`, {
      location: { field: flag },
      hint: `e.g. ${flag} ${range.integer ? '2000' : '0.9'}`,
    });
  }
  return value;
}
