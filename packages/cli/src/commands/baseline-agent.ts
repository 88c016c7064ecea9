import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CliContext } from '../context.js';
import { showPath } from './format.js';
import { createRunnerRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';
import { defaultTrajectories } from './serve.js';

export interface AgentBaselineFlags extends RuntimeFlags {
  tasks: string;
  output: string;
  seed?: string;
  baseUrl?: string;
  model?: string;
  retries: number;
  requestTimeout?: number;
}

/**
 * `baseline agent`: the reference agent on every task of the tasks file, through the harness's sessions in the
 * runtime; tasks already in the predictions file are skipped, so a rerun resumes (README, "An agent in the notebook").
 */
export async function runAgentBaseline(
  flags: AgentBaselineFlags,
  set: { instancesDir: string; ids: string[] },
  ctx: CliContext,
): Promise<void> {
  const { createHarness, createOpenAIAgentChat, openHarnessTasks, runReferenceAgent } =
    await import('@junobench/harness');
  const output = path.resolve(ctx.cwd, flags.output);
  const trajectories = path.resolve(ctx.cwd, defaultTrajectories(flags.output));
  const tasks = await openHarnessTasks({
    tasks: path.resolve(ctx.cwd, flags.tasks),
    instancesDir: set.instancesDir,
    ids: set.ids,
    ...(flags.seed ? { seed: flags.seed } : {}),
  });
  const answered = await readAnsweredIds(output);
  const apiKey = ctx.env.OPENAI_API_KEY;
  if (!apiKey) ctx.err('note: OPENAI_API_KEY is not set; the endpoint gets no key (fine for a local server)');
  const chat = await createOpenAIAgentChat({
    baseURL: flags.baseUrl!,
    model: flags.model!,
    ...(apiKey ? { apiKey } : {}),
    maxRetries: flags.retries,
    ...(flags.requestTimeout ? { timeoutMs: flags.requestTimeout * 1000 } : {}),
  });
  const harness = createHarness({
    tasks,
    createRuntime: () => createRunnerRuntimeFromFlags(flags, ctx),
    predictions: output,
    trajectories,
    limits: { maxSessions: 1 },
  });
  const progress = ctx.progress('baseline agent');
  let done = 0;
  let report;
  try {
    report = await runReferenceAgent({
      harness,
      taskIds: tasks.map((t) => t.task.id),
      chat,
      answered,
      onTask: (id, outcome) =>
        progress({ task: 'baseline agent', done: ++done, total: tasks.length, item: `${id} ${outcome}` }),
    });
  } finally {
    progress.done();
    await harness.close();
  }
  const show = (p: string) => showPath(ctx.cwd, p);
  ctx.out(
    `wrote ${show(output)}: ${report.submitted.length} tasks answered now` +
      `${answered.size > 0 ? `, ${answered.size} from an earlier run` : ''}` +
      `${report.gaveUp.length > 0 ? `, ${report.gaveUp.length} without an answer (out of turns)` : ''}; trajectories in ${show(trajectories)}`,
  );
}

/** The task ids a predictions file already answers (none when it does not exist yet). */
async function readAnsweredIds(file: string): Promise<Set<string>> {
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const ids = new Set<string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === 'string') ids.add(id);
    } catch {
      // score names a broken line; here it only means that task is asked again.
    }
  }
  return ids;
}
