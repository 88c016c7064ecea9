import path from 'node:path';
import { Option, type Command } from 'commander';
import { JunoError, checkOutputPaths } from '@junobench/core';
import type { CliContext } from '../context.js';
import {
  addBenchmarkSetOptions,
  openBenchmarkSet,
  readsOfBenchmarkSet,
  type BenchmarkSetFlags,
} from './benchmark-set.js';
import { parsePositiveInt, parsePositiveNumber, printable, showPath } from './format.js';
import { runAgentBaseline } from './baseline-agent.js';
import { addRunnerOptions, type RuntimeFlags } from './runtime-flags.js';

// Defaults shown in the help, copied with the package's literal types (CONTRIBUTING.md, "CLI": imports in the CLI).
const DEFAULT_LLM_ATTEMPTS: (typeof import('@junobench/llm'))['DEFAULT_LLM_ATTEMPTS'] = 5;
const DEFAULT_LLM_CONCURRENCY: (typeof import('@junobench/llm'))['DEFAULT_LLM_CONCURRENCY'] = 4;
const DEFAULT_LLM_RETRIES: (typeof import('@junobench/llm'))['DEFAULT_LLM_RETRIES'] = 6;

interface BaselineFlags extends BenchmarkSetFlags, RuntimeFlags {
  tasks: string;
  output: string;
  seed?: string;
  baseUrl?: string;
  model?: string;
  attempts: number;
  concurrency: number;
  temperature?: number;
  retries: number;
  requestTimeout?: number;
  log?: string;
}

const parseTemperature = (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 2)
    throw new JunoError('E_USAGE', `--temperature ${v} is not a number from 0 to 2`, {
      hint: 'e.g. --temperature 0.7',
    });
  return n;
};
const parseRetries = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new JunoError('E_USAGE', `--retries ${v} is not a whole number`, { hint: 'e.g. --retries 6 (0: none)' });
  return n;
};

// Verb: baseline (docs/scoring.md, "Reference scorecards" and "A language model as a tool"). Library packages are
// imported inside the action, so that other commands do not pay for loading them.
export function registerBaselineCommand(program: Command, ctx: CliContext): void {
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  const show = (p: string) => showPath(ctx.cwd, p);

  const cmd = program
    .command('baseline')
    .description(
      'Reference predictions for a tasks file. oracle: the answers from the labels and the fixed notebooks ' +
        '(scores 100% on every scorable task). heuristic: diagnose from the label suggestions of ' +
        '`labels suggest` (all four dimensions, from the notebook and its error); detect: "crashes" with the most frequent exception; repair: none. ' +
        "llm: each task's prompt sent to a language model through an OpenAI-compatible endpoint (--base-url, --model; the key from OPENAI_API_KEY), " +
        `${DEFAULT_LLM_ATTEMPTS} attempts per task by default (score takes their majority vote); resumable from its log.`,
    )
    .argument('<which>', 'oracle, heuristic, llm or agent')
    .requiredOption('--tasks <tasks.jsonl>', 'the tasks file (from `junobench tasks export`)')
    .requiredOption('-o, --output <predictions.jsonl>', 'the predictions file to write')
    .option('--instances <dir>', 'the instances the tasks were exported from', 'raw/instances')
    .option('--seed <seed>', 'the seed the tasks were exported with')
    .option(
      '--base-url <url>',
      'llm: the endpoint, e.g. http://127.0.0.1:11434/v1 (Ollama), http://host:8000/v1 (vLLM)',
    )
    .option('--model <name>', 'llm: the model name the endpoint serves')
    .addOption(
      new Option('--attempts <n>', 'llm: requests per task, each an attempt')
        .argParser(parsePositiveInt)
        .default(DEFAULT_LLM_ATTEMPTS),
    )
    .addOption(
      new Option('--concurrency <n>', 'llm: requests at once')
        .argParser(parsePositiveInt)
        .default(DEFAULT_LLM_CONCURRENCY),
    )
    .addOption(
      new Option('--temperature <t>', "llm: sampling temperature (default: the endpoint's)").argParser(
        parseTemperature,
      ),
    )
    .addOption(
      new Option('--retries <n>', 'llm: retries of a request answered 429 or 5xx (or not at all), with backoff')
        .argParser(parseRetries)
        .default(DEFAULT_LLM_RETRIES),
    )
    .addOption(
      new Option('--request-timeout <s>', 'llm: seconds per request (default 600)').argParser(parsePositiveNumber),
    )
    .option('--log <file>', 'llm: the log of every reply, also what a rerun resumes from (default <output>.log.jsonl)');
  addBenchmarkSetOptions(cmd);
  // agent: the sessions run in a runtime, as `serve`'s do.
  addRunnerOptions(cmd);
  cmd
    .addHelpText(
      'after',
      '\nExit status: 0 written, 1 llm: some requests failed after their retries (run again to ask for those), 2 bad input.\n' +
        'Examples:\n  junobench baseline oracle --tasks tasks.jsonl -o oracle.jsonl\n  junobench baseline heuristic --tasks tasks.jsonl -o heuristic.jsonl\n' +
        '  OPENAI_API_KEY=… junobench baseline llm --tasks tasks.jsonl -o llm.jsonl --base-url http://127.0.0.1:8000/v1 --model mistral-small-3.1' +
        '\n  junobench baseline agent --tasks tasks.jsonl -o agent.jsonl --base-url http://127.0.0.1:8000/v1 --model mistral-small-3.1   (tool calling through the sessions of `serve`; trajectories in agent.trajectories/; resumes)',
    )
    .action(async (which: string, flags: BaselineFlags) => {
      const { BASELINES } = await import('@junobench/score');
      if (which !== 'llm' && which !== 'agent' && !(BASELINES as readonly string[]).includes(which)) {
        throw new JunoError('E_USAGE', `unknown baseline "${which}"`, {
          hint: `use one of: ${[...BASELINES, 'llm', 'agent'].join(', ')}`,
        });
      }
      const log = resolve(flags.log ?? `${flags.output}.log.jsonl`);
      const reads = await readsOfBenchmarkSet(flags, ctx);
      await checkOutputPaths({
        inputs: [resolve(flags.tasks), ...reads.inputs],
        trees: reads.trees,
        outputs: [
          { path: resolve(flags.output), flag: '-o' },
          ...(which === 'llm' ? [{ path: log, flag: '--log' }] : []),
        ],
      });
      if ((which === 'llm' || which === 'agent') && (!flags.baseUrl || !flags.model))
        throw new JunoError('E_USAGE', `baseline ${which} needs --base-url and --model`, {
          hint: 'e.g. --base-url http://127.0.0.1:8000/v1 --model mistral-small-3.1',
        });
      const set = await openBenchmarkSet(flags, ctx);
      try {
        if (which === 'llm') await runLlm(flags, log, set, ctx);
        else if (which === 'agent') await runAgentBaseline(flags, set, ctx);
        else await runReference(which as (typeof BASELINES)[number], flags, set, ctx);
      } finally {
        await set.close();
      }
    });

  async function runReference(
    which: 'oracle' | 'heuristic',
    flags: BaselineFlags,
    set: { instancesDir: string; ids: string[] },
    c: CliContext,
  ): Promise<void> {
    const { runBaseline } = await import('@junobench/score');
    const report = await runBaseline({
      baseline: which,
      tasks: resolve(flags.tasks),
      output: resolve(flags.output),
      instancesDir: set.instancesDir,
      ids: set.ids,
      ...(flags.seed ? { seed: flags.seed } : {}),
    });
    const n = report.counts;
    c.out(
      `wrote ${show(report.output)}: ${n.detect} detect, ${n.diagnose} diagnose, ${n.repair} repair predictions for ${report.tasks} tasks`,
    );
  }

  async function runLlm(
    flags: BaselineFlags,
    log: string,
    set: { instancesDir: string; ids: string[] },
    c: CliContext,
  ): Promise<void> {
    const { readTasksOfSet } = await import('@junobench/evaluate');
    const { runLlmBaseline, createOpenAIChatClient } = await import('@junobench/llm');
    const tasks = await readTasksOfSet(resolve(flags.tasks), set, flags.seed);
    const apiKey = c.env.OPENAI_API_KEY;
    if (!apiKey) c.err('note: OPENAI_API_KEY is not set; the endpoint gets no key (fine for a local server)');
    const client = await createOpenAIChatClient({
      baseURL: flags.baseUrl!,
      ...(apiKey ? { apiKey } : {}),
      maxRetries: flags.retries,
      ...(flags.requestTimeout ? { timeoutMs: flags.requestTimeout * 1000 } : {}),
    });
    const progress = c.progress('baseline llm');
    let report;
    try {
      report = await runLlmBaseline({
        tasks,
        output: resolve(flags.output),
        log,
        client,
        model: flags.model!,
        attempts: flags.attempts,
        concurrency: flags.concurrency,
        ...(flags.temperature !== undefined ? { temperature: flags.temperature } : {}),
        onProgress: progress,
      });
    } finally {
      progress.done();
    }
    for (const f of report.failed.slice(0, 10)) c.err(`failed ${f.id} attempt ${f.attempt}: ${printable(f.reason)}`);
    if (report.failed.length > 10) c.err(`… and ${report.failed.length - 10} more failed requests (in the log)`);
    c.out(
      `wrote ${show(report.output)}: ${report.lines} predictions for ${report.tasks} tasks × ${report.attempts} attempts ` +
        `(${report.answered} answered now, ${report.abstained} abstained${report.resumed > 0 ? `, ${report.resumed} from an earlier run` : ''}${report.failed.length > 0 ? `, ${report.failed.length} failed` : ''}); log ${show(report.log)}`,
    );
    if (report.failed.length > 0) c.exitCode = 1;
  }
}
