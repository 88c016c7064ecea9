import path from 'node:path';
import { Option, type Command } from 'commander';
import { checkOutputPaths, type TaskKind } from '@junobench/core';
import type { CliContext } from '../context.js';
import { showPath } from './format.js';

const TASK_CHOICES = ['detect', 'diagnose', 'repair', 'all'] as const;

interface ExportFlags {
  task: (typeof TASK_CHOICES)[number];
  instances: string;
  output: string;
  seed?: string;
  workspace?: string;
}

// Verb: tasks export (docs/scoring.md, "Tasks"). The score package is imported inside the action, so that other
// commands do not pay for loading it.
export function registerTasksCommand(program: Command, ctx: CliContext): void {
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  const show = (p: string) => showPath(ctx.cwd, p);

  const tasks = program
    .command('tasks')
    .description('Tasks for debugging tools (detect, diagnose, repair), made from the instances.');
  tasks
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
    .addHelpText(
      'after',
      '\nExamples:\n  junobench tasks export --task all -o tasks.jsonl\n  junobench tasks export --task repair -o repair.jsonl --workspace work/',
    )
    .action(async (flags: ExportFlags) => {
      await checkOutputPaths({ inputs: [], outputs: [{ path: resolve(flags.output), flag: '-o' }] });
      const { exportTasks, TASK_KINDS } = await import('@junobench/score');
      const kinds: readonly TaskKind[] = flags.task === 'all' ? TASK_KINDS : [flags.task];
      const report = await exportTasks({
        instancesDir: resolve(flags.instances),
        output: resolve(flags.output),
        kinds,
        ...(flags.seed ? { seed: flags.seed } : {}),
        ...(flags.workspace ? { workspace: resolve(flags.workspace) } : {}),
      });
      for (const s of report.skipped) ctx.err(`skipped ${s.instance}: ${s.reason}`);
      for (const w of report.warnings) ctx.err(`warning: ${w}`);
      const counts = kinds.map((k) => `${report.counts[k]} ${k}`).join(', ');
      ctx.out(`wrote ${show(report.output)}: ${counts} tasks from ${report.instances} instances`);
      if (report.workspace)
        ctx.out(`repair workspaces in ${show(report.workspace)}/<task id>/ (notebook.ipynb and the data files)`);
    });
}
