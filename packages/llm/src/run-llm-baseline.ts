import { appendFile, readFile } from 'node:fs/promises';
import {
  JunoError,
  compareCodePoints,
  redactSecrets,
  stableStringify,
  writeFileAtomic,
  type LlmLogEntry,
  type ProgressListener,
  type Task,
  type TaskKind,
} from '@junobench/core';
import type { ChatClient } from './openai-chat-client.js';
import { parseModelAnswer } from './parse-model-answer.js';

/** The JunoBench authors' protocol for language models: five attempts per task, scored by majority vote. */
export const DEFAULT_LLM_ATTEMPTS = 5;
export const DEFAULT_LLM_CONCURRENCY = 4;

export interface RunLlmBaselineOptions {
  tasks: readonly Task[];
  output: string;
  /** The log (schemas/llm-log.schema.json): appended as each request ends; a rerun resumes from it. */
  log: string;
  client: ChatClient;
  model: string;
  attempts?: number;
  concurrency?: number;
  temperature?: number;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

export interface LlmBaselineReport {
  output: string;
  log: string;
  tasks: number;
  attempts: number;
  /** (task, attempt) pairs answered or abstained in an earlier run, skipped now. */
  resumed: number;
  answered: number;
  abstained: number;
  /** Requests that failed after their retries: asked again by a rerun. */
  failed: { id: string; attempt: number; reason: string }[];
  /** Prediction lines in the output file. */
  lines: number;
}

const slot = (id: string, attempt: number) => `${id}\u0000${attempt}`;

/**
 * `junobench baseline llm`: every task's prompt sent to the model `attempts` times (each attempt its own request),
 * each reply read as an answer (parseModelAnswer) or an abstention, logged as it ends. The predictions file is
 * written at the end, atomically, sorted by the tasks file's order and the attempt, from the log: the replies of an
 * earlier run (answered or abstained) are kept and not asked again, so an interrupted run resumes where it stopped.
 */
export async function runLlmBaseline(options: RunLlmBaselineOptions): Promise<LlmBaselineReport> {
  const attempts = options.attempts ?? DEFAULT_LLM_ATTEMPTS;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_LLM_CONCURRENCY);
  const known = new Set(options.tasks.map((t) => t.id));
  const done = new Map<string, LlmLogEntry>();
  for (const e of await readLlmLog(options.log)) {
    if (!known.has(e.id) || e.attempt > attempts) continue;
    if (e.status !== 'failed') done.set(slot(e.id, e.attempt), e);
  }
  const resumed = done.size;
  const todo: { task: Task; attempt: number }[] = [];
  for (const task of options.tasks)
    for (let a = 1; a <= attempts; a++) if (!done.has(slot(task.id, a))) todo.push({ task, attempt: a });

  const failed: LlmBaselineReport['failed'] = [];
  let answered = 0;
  let abstained = 0;
  let finished = 0;
  const total = todo.length;
  options.onProgress?.({ task: 'baseline llm', done: 0, total });
  const ask = async (job: { task: Task; attempt: number }): Promise<void> => {
    const entry = await askOnce(job.task, job.attempt, options);
    await appendFile(options.log, `${stableStringify(entry)}\n`);
    if (entry.status === 'failed') failed.push({ id: entry.id, attempt: entry.attempt, reason: entry.reason ?? '' });
    else done.set(slot(entry.id, entry.attempt), entry);
    if (entry.status === 'answered') answered++;
    if (entry.status === 'abstained') abstained++;
    options.onProgress?.({ task: 'baseline llm', done: ++finished, total, item: `${entry.id} #${entry.attempt}` });
  };
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      if (options.signal?.aborted) return;
      await ask(todo[next++]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));

  const order = new Map(options.tasks.map((t, i) => [t.id, i]));
  const lines = [...done.values()]
    .filter((e) => e.status === 'answered')
    .sort((a, b) => order.get(a.id)! - order.get(b.id)! || a.attempt - b.attempt)
    .map((e) => `${stableStringify({ task: e.task, id: e.id, attempt: e.attempt, answer: e.answer })}\n`);
  await writeFileAtomic(options.output, lines.join(''));
  failed.sort((a, b) => compareCodePoints(a.id, b.id) || a.attempt - b.attempt);
  return {
    output: options.output,
    log: options.log,
    tasks: options.tasks.length,
    attempts,
    resumed,
    answered,
    abstained,
    failed,
    lines: lines.length,
  };
}

async function askOnce(task: Task, attempt: number, options: RunLlmBaselineOptions): Promise<LlmLogEntry> {
  const base = { task: task.task as TaskKind, id: task.id, attempt, model: options.model };
  let reply: string;
  try {
    reply = await options.client.complete(task.prompt, {
      model: options.model,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (e) {
    return { ...base, status: 'failed', reason: redactSecrets((e as Error).message ?? String(e)) };
  }
  const parsed = parseModelAnswer(task.task, task.id, reply);
  return 'answer' in parsed
    ? { ...base, status: 'answered', answer: parsed.answer, reply }
    : { ...base, status: 'abstained', reason: parsed.problem, reply };
}

/** The log's entries; a missing log is empty, and a torn last line (a run killed mid-write) is ignored. */
export async function readLlmLog(file: string): Promise<LlmLogEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const lines = text.split('\n');
  const out: LlmLogEntry[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as LlmLogEntry);
    } catch (e) {
      if (i === lines.length - 1) continue;
      throw new JunoError('E_INPUT_FORMAT', `not a JSON line: ${(e as Error).message}`, {
        location: { file, line: i + 1 },
        hint: 'the log is written by `junobench baseline llm` only; move it away to start afresh',
      });
    }
  }
  return out;
}
