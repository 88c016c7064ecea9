import path from 'node:path';
import type { Command } from 'commander';
import { JunoError, checkOutputPaths } from '@junobench/core';
import type { CliContext } from '../context.js';
import { showPath } from './format.js';

interface BaselineFlags {
  tasks: string;
  output: string;
  instances: string;
  seed?: string;
}

// Verb: baseline (docs/scoring.md, "Reference scorecards on the embedded benchmark"). The score package is
// imported inside the action, so that other commands do not pay for loading it.
export function registerBaselineCommand(program: Command, ctx: CliContext): void {
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  const show = (p: string) => showPath(ctx.cwd, p);

  program
    .command('baseline')
    .description(
      'Reference predictions for a tasks file, to show the formats and the scale. oracle: the answers from the labels and the fixed notebooks ' +
        '(scores 100% on every scorable task). heuristic: diagnose from the label suggestions of ' +
        '`labels suggest` (all four dimensions, from the notebook and its error); detect: "crashes" with the most frequent exception; repair: none.',
    )
    .argument('<which>', 'oracle or heuristic')
    .requiredOption('--tasks <tasks.jsonl>', 'the tasks file (from `junobench tasks export`)')
    .requiredOption('-o, --output <predictions.jsonl>', 'the predictions file to write')
    .option('--instances <dir>', 'oracle: the instances the tasks were exported from', 'raw/instances')
    .option('--seed <seed>', 'oracle: the seed the tasks were exported with')
    .addHelpText(
      'after',
      '\nExamples:\n  junobench baseline oracle --tasks tasks.jsonl -o oracle.jsonl\n  junobench baseline heuristic --tasks tasks.jsonl -o heuristic.jsonl',
    )
    .action(async (which: string, flags: BaselineFlags) => {
      await checkOutputPaths({
        inputs: [resolve(flags.tasks)],
        outputs: [{ path: resolve(flags.output), flag: '-o' }],
      });
      const { runBaseline, BASELINES } = await import('@junobench/score');
      if (!(BASELINES as readonly string[]).includes(which)) {
        throw new JunoError('E_USAGE', `unknown baseline "${which}"`, { hint: `use one of: ${BASELINES.join(', ')}` });
      }
      const report = await runBaseline({
        baseline: which as (typeof BASELINES)[number],
        tasks: resolve(flags.tasks),
        output: resolve(flags.output),
        instancesDir: resolve(flags.instances),
        ...(flags.seed ? { seed: flags.seed } : {}),
      });
      const c = report.counts;
      ctx.out(
        `wrote ${show(report.output)}: ${c.detect} detect, ${c.diagnose} diagnose, ${c.repair} repair predictions for ${report.tasks} tasks`,
      );
    });
}
