import path from 'node:path';
import type { Command } from 'commander';
import { JunoError } from '@junobench/core';
import type { AnnotationUpdate } from '@junobench/labels';
import type { CliContext } from '../context.js';

// `labels sheet`, `labels import`, `labels record`: the annotation round trip (@junobench/annotate, loaded in the
// actions). README, "The maintainer's path", walks through it.

interface PlaceFlags {
  instances: string;
  annotations: string;
}

function addPlaceOptions(cmd: Command): Command {
  return cmd
    .option('--instances <dir>', 'the instances', 'raw/instances')
    .option('--annotations <dir>', "the annotators' files", 'raw/annotations');
}

export function registerLabelSheets(labels: Command, ctx: CliContext): void {
  const sheet = labels
    .command('sheet')
    .description(
      "Write one annotator's label sheet (.xlsx): a row per instance that needs their labels (its id, crash and report page), the suggested labels pre-filled and marked as suggestions, " +
        'the four vocabularies as dropdowns, a diagnosis column, and "reviewed" (only rows marked yes are imported).',
    )
    .requiredOption('--annotator <name>', 'whose sheet (their labels go to <annotations>/<name>.jsonl)')
    .requiredOption('-o, --output <file.xlsx>', 'the workbook to write')
    .option('--deprecated <file>', 'deprecated instances, never listed', 'raw/deprecated.json')
    .option('--report <dir>', 'the HTML report the rows link to', 'curated/report')
    .option('--all', 'also list the instances the annotator labelled already, with their labels (to revise them)');
  addPlaceOptions(sheet).action(
    async (
      flags: PlaceFlags & { annotator: string; output: string; deprecated: string; report: string; all?: boolean },
    ) => {
      const { makeLabelSheet } = await import('@junobench/annotate');
      const abs = (p: string) => path.resolve(ctx.cwd, p);
      const { plan, bytes } = await makeLabelSheet({
        annotator: flags.annotator,
        out: abs(flags.output),
        instancesDir: abs(flags.instances),
        annotationsDir: abs(flags.annotations),
        deprecatedFile: abs(flags.deprecated),
        reportDir: abs(flags.report),
        ...(flags.all ? { all: true } : {}),
      });
      const drafts = plan.rows.filter((r) => r.status === 'draft').length;
      const suggested = plan.rows.filter((r) => r.suggested.length > 0).length;
      ctx.out(
        `wrote ${flags.output} (${bytes} bytes): ${plan.rows.length} instance${plan.rows.length === 1 ? '' : 's'} for ${flags.annotator} to label` +
          `${drafts ? ` (${drafts} draft${drafts === 1 ? '' : 's'})` : ''}${suggested ? `; suggestions pre-filled in ${suggested} row${suggested === 1 ? '' : 's'}, marked in yellow italics` : ''}` +
          `${plan.labelled && !flags.all ? `; ${plan.labelled} already labelled by ${flags.annotator} left out (--all lists them)` : ''}`,
      );
      ctx.out(
        `next: fill it in, set "reviewed" to yes on each row whose labels are yours, then: junobench labels import ${flags.output} --annotator ${flags.annotator}`,
      );
    },
  );

  const imp = labels
    .command('import')
    .description(
      "Import a filled label sheet into the annotator's file (<annotations>/<annotator>.jsonl): the rows marked reviewed. " +
        "Every problem is named by sheet, row and column, and nothing is written until there is none; another annotator's file is never touched; importing the same sheet again changes nothing.",
    )
    .argument('<file.xlsx>', 'the sheet `labels sheet` wrote, filled in')
    .requiredOption('--annotator <name>', 'whose labels (must be the annotator the sheet was made for)')
    .option('--dry-run', 'check the sheet and say what would change; write nothing');
  addPlaceOptions(imp).action(async (file: string, flags: PlaceFlags & { annotator: string; dryRun?: boolean }) => {
    const { importLabelSheet } = await import('@junobench/annotate');
    const r = await importLabelSheet({
      file: path.resolve(ctx.cwd, file),
      annotator: flags.annotator,
      annotationsDir: path.resolve(ctx.cwd, flags.annotations),
      instancesDir: path.resolve(ctx.cwd, flags.instances),
      ...(flags.dryRun ? { dryRun: true } : {}),
    });
    printUpdate(ctx, flags.annotator, r.update, r.written, Boolean(flags.dryRun));
    if (r.notReviewed.length > 0)
      ctx.out(
        `${r.notReviewed.length} row${r.notReviewed.length === 1 ? '' : 's'} not marked reviewed, left out: ${r.notReviewed
          .map((n) => `${n.id || '(no id)'} (row ${n.row})`)
          .join(', ')}`,
      );
  });

  const record = labels
    .command('record')
    .description(
      "Record one annotator's labels of one instance (a line of <annotations>/<annotator>.jsonl, added or replaced).",
    )
    .argument('<instance-id>', 'the instance')
    .requiredOption('--annotator <name>', 'whose labels')
    .requiredOption('--library <name>', 'library cause (tensorflow/keras, torch, sklearn, numpy, pandas, …, None)')
    .requiredOption('--crash-type <type>', 'crash type (key error, value error, tensor shape mismatch, …)')
    .requiredOption('--root-cause <cause>', 'root cause (API misuse, data confusion, NB specific, …)')
    .requiredOption('--stage <stage>', 'ML pipeline stage (data preparation, training, …)')
    .option('--diagnosis <text>', 'what went wrong and why, in a few sentences')
    .addHelpText(
      'after',
      '\nExample:\n  junobench labels record pandas_4 --annotator annotator-a --library pandas --crash-type "key error" --root-cause "data confusion" --stage "data preparation" --diagnosis "…"',
    );
  addPlaceOptions(record).action(
    async (
      id: string,
      flags: PlaceFlags & {
        annotator: string;
        library: string;
        crashType: string;
        rootCause: string;
        stage: string;
        diagnosis?: string;
      },
    ) => {
      const { recordLabel } = await import('@junobench/annotate');
      const r = await recordLabel({
        annotationsDir: path.resolve(ctx.cwd, flags.annotations),
        instancesDir: path.resolve(ctx.cwd, flags.instances),
        instance: id,
        annotator: flags.annotator,
        labels: {
          library: flags.library,
          crashType: flags.crashType,
          rootCause: flags.rootCause,
          pipelineStage: flags.stage,
        },
        ...(flags.diagnosis !== undefined ? { diagnosis: flags.diagnosis } : {}),
        flags: { library: '--library', crashType: '--crash-type', rootCause: '--root-cause', pipelineStage: '--stage' },
      });
      printUpdate(ctx, flags.annotator, r.update, r.written, false);
    },
  );
}

function printUpdate(ctx: CliContext, annotator: string, u: AnnotationUpdate, written: boolean, dryRun: boolean): void {
  const shown = path.relative(ctx.cwd, u.file) || u.file;
  if (!u.changed) {
    ctx.out(
      `${annotator}: nothing changed (${u.unchanged.length} label${u.unchanged.length === 1 ? '' : 's'} already as given) in ${shown}`,
    );
    return;
  }
  ctx.out(
    `${annotator}: ${u.added.length} added, ${u.changes.length} changed, ${u.unchanged.length} unchanged ${dryRun ? '(dry run: nothing written) in' : written ? '→' : 'in'} ${shown}`,
  );
  for (const id of u.added) ctx.out(`  added    ${id}`);
  for (const c of u.changes)
    ctx.out(
      `  changed  ${c.instance}: ${c.fields.map((f) => `${f.field} ${JSON.stringify(f.from)} → ${JSON.stringify(f.to)}`).join(', ')}`,
    );
  if (!written && !dryRun) throw new JunoError('E_INTERNAL', `${shown} was not written`);
}
