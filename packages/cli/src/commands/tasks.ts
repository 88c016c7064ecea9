import path from 'node:path';
import { Option, type Command } from 'commander';
import { checkOutputPaths, type TaskKind } from '@junobench/core';
import type { CliContext } from '../context.js';
import {
  addBenchmarkSetOptions,
  openBenchmarkSet,
  readsOfBenchmarkSet,
  type BenchmarkSetFlags,
} from './benchmark-set.js';
import { parsePositiveInt, printable, showPath } from './format.js';
import { addRunnerOptions, createRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';

const TASK_CHOICES = ['detect', 'diagnose', 'repair', 'all'] as const;

const CONTEXT_CHOICES = ['static', 'runtime'] as const;

interface ExportFlags extends BenchmarkSetFlags, RuntimeFlags {
  task: (typeof TASK_CHOICES)[number];
  output: string;
  seed?: string;
  workspace?: string;
  context: (typeof CONTEXT_CHOICES)[number];
  jobs?: number;
}

// Verb: tasks export (docs/scoring.md, "Tasks"). The score package is imported inside the action, so that other
// commands do not pay for loading it.
export function registerTasksCommand(program: Command, ctx: CliContext): void {
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  const show = (p: string) => showPath(ctx.cwd, p);

  const tasks = program
    .command('tasks')
    .description('Tasks for debugging tools (detect, diagnose, repair), made from the instances.');
  const exportCmd = tasks
    .command('export')
    .description(
      'Write the tasks of the instances as JSONL (schemas/task.schema.json), one per line, shuffled with a fixed seed and with opaque ids: ' +
        'detect (does the target cell crash? both versions of every instance, so half crash), diagnose (label the crash) and repair (return a repaired notebook). ' +
        'Each task carries a plain-text prompt for language models. The answers stay with the instances: `junobench score` recomputes them.',
    )
    .addOption(new Option('--task <kind>', 'which tasks').choices([...TASK_CHOICES]).default('all'))
    .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
    .requiredOption('-o, --output <tasks.jsonl>', 'the tasks file to write')
    .option('--seed <seed>', 'seed of the task ids and order (score with the same one; default junobench-tasks-1)')
    .option(
      '--workspace <dir>',
      'also write <dir>/<repair task id>/ with the data files and the crashing notebook, for tools that run notebooks',
    )
    .addOption(
      new Option(
        '--context <kind>',
        'runtime: each detect and diagnose task carries the kernel state just before its target cell (for each name the cell reads: type, shape, dtype, columns, length, short repr), captured by running only the cells before it, never the target',
      )
        .choices([...CONTEXT_CHOICES])
        .default('static'),
    )
    .option('--jobs <n>', '--context runtime: notebooks run at once (default: number of CPUs)', parsePositiveInt);
  addBenchmarkSetOptions(exportCmd);
  addRunnerOptions(exportCmd);
  const runtimeOption = exportCmd.options.find((o) => o.long === '--runtime');
  if (runtimeOption) runtimeOption.description = '--context runtime: where the cells before each target run';
  exportCmd
    .addHelpText(
      'after',
      '\nExamples:\n  junobench tasks export --task all -o tasks.jsonl\n  junobench tasks export --release releases/junobench-0.2.0/junobench-0.2.0.tar.gz -o tasks.jsonl\n' +
        '  junobench tasks export --context runtime -o tasks-runtime.jsonl\n  junobench tasks export --task repair -o repair.jsonl --workspace work/',
    )
    .action(async (flags: ExportFlags) => {
      await checkOutputPaths({
        ...(await readsOfBenchmarkSet(flags, ctx)),
        outputs: [
          { path: resolve(flags.output), flag: '-o' },
          ...(flags.workspace ? [{ path: resolve(flags.workspace), flag: '--workspace', folder: true }] : []),
        ],
      });
      const { TASK_KINDS } = await import('@junobench/score');
      const { exportBenchmarkTasks } = await import('@junobench/evaluate');
      const kinds: readonly TaskKind[] = flags.task === 'all' ? TASK_KINDS : [flags.task];
      const set = await openBenchmarkSet(flags, ctx);
      const progress = ctx.progress('state');
      let report;
      try {
        report = await exportBenchmarkTasks({
          set,
          output: resolve(flags.output),
          kinds,
          context: flags.context,
          createRuntime: () => createRuntimeFromFlags(flags, ctx),
          ...(flags.jobs ? { jobs: flags.jobs } : {}),
          onProgress: progress,
          ...(flags.seed ? { seed: flags.seed } : {}),
          ...(flags.workspace ? { workspace: resolve(flags.workspace) } : {}),
        });
      } finally {
        progress.done();
        await set.close();
      }
      for (const s of report.skipped) ctx.err(`skipped ${s.instance}: ${printable(s.reason)}`);
      for (const u of report.states?.uncaptured ?? [])
        ctx.err(`warning: no runtime state for ${u.key}: ${printable(u.reason)}`);
      for (const w of report.warnings) ctx.err(`warning: ${printable(w)}`);
      const counts = kinds.map((k) => `${report.counts[k]} ${k}`).join(', ');
      ctx.out(`wrote ${show(report.output)}: ${counts} tasks from ${report.instances} instances`);
      if (report.states)
        ctx.out(
          `runtime context: the state before ${report.states.captured} of ${report.states.captured + report.states.uncaptured.length} target cells (${flags.runtime} runtime)`,
        );
      if (report.workspace)
        ctx.out(`repair workspaces in ${show(report.workspace)}/<task id>/ (notebook.ipynb and the data files)`);
    });
}
