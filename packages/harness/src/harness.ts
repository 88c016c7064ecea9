import { access, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { copyInstanceTree, formatJson, type RunResult } from '@junobench/core';
import { listCodeCells, type CodeCell, type Notebook } from '@junobench/notebook';
import { createRunFolder, sweepStaleRunFolders, type RunFolder, type Runtime } from '@junobench/runtime';
import { isAnswerFile } from '@junobench/score';
import { DEFAULT_HARNESS_LIMITS, type HarnessLimits } from './harness-limits.js';
import type { HarnessTask } from './harness-task.js';
import { PredictionsFile } from './predictions-file.js';
import { describeNotebook } from './describe-notebook.js';
import {
  RUN_NOTEBOOK,
  SESSION_NOTEBOOK,
  interpretReplay,
  parseInspectProbe,
  parseRunCellProbe,
  planInspectProbe,
  planRunCellProbe,
  planRunNotebook,
} from './session-run.js';
import { parseToolCall, type ToolCall } from './tool-arguments.js';
import { ToolError } from './tool-error.js';
import { TrajectoryLog, summarizeText } from './trajectory-log.js';

export interface HarnessOptions {
  tasks: readonly HarnessTask[];
  /** A fresh runtime per session (its own sandbox folder), closed with the session. */
  createRuntime: () => Promise<Runtime>;
  /** The predictions file submit writes to. */
  predictions: string;
  /** The folder of the trajectories (one JSONL file per session). */
  trajectories: string;
  limits?: Partial<HarnessLimits>;
  /** Where the sessions' scratch folders go (default the OS temp folder). */
  scratchRoot?: string;
  now?: () => number;
}

export type ToolOutcome =
  { ok: true; value: Record<string, unknown> } | { ok: false; code: ToolError['code']; message: string };

export interface Harness {
  readonly limits: HarnessLimits;
  /** One tool call: its outcome (a refusal is an outcome, not a throw), logged in the session's trajectory. */
  call(tool: string, args: unknown): Promise<ToolOutcome>;
  /** The sessions open now. */
  sessions(): string[];
  /** Close one session without an answer (its kernel and scratch folder gone); nothing when it is not open. */
  closeSession(id: string): Promise<void>;
  /** Close every session (kernels and scratch folders gone). */
  close(): Promise<void>;
}

interface Session {
  id: string;
  spec: HarnessTask;
  dir: string;
  runtime: Runtime;
  notebook: Notebook;
  accepted: string[];
  calls: number;
  openedAt: number;
  busy: boolean;
  abort: AbortController;
}

/**
 * The agent harness: sessions on tasks, each a scratch folder holding only the task's notebook and data, where every
 * run_cell, inspect and restart replays the session's cells in a fresh sandboxed kernel of the runtime (README, "An
 * agent in the notebook").
 */
export function createHarness(options: HarnessOptions): Harness {
  return new SessionHarness(options);
}

class SessionHarness implements Harness {
  readonly limits: HarnessLimits;
  private readonly now: () => number;
  private readonly byId: Map<string, HarnessTask>;
  private readonly open = new Map<string, Session>();
  private readonly known = new Set<string>();
  /** The task of every session opened, open or closed. */
  private readonly specOf = new Map<string, HarnessTask>();
  private readonly log: TrajectoryLog;
  private readonly predictions: PredictionsFile;
  private root: RunFolder | undefined;
  private closed = false;

  constructor(private readonly options: HarnessOptions) {
    this.limits = { ...DEFAULT_HARNESS_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.byId = new Map(options.tasks.map((t) => [t.task.id, t]));
    this.log = new TrajectoryLog(options.trajectories);
    this.predictions = new PredictionsFile(options.predictions);
    // What a killed server left (its sessions' scratch folders, its runtimes' run folders) goes at this start, not at
    // the first session.
    sweepStaleRunFolders(options.scratchRoot ?? os.tmpdir());
  }

  sessions(): string[] {
    return [...this.open.keys()];
  }

  async call(tool: string, args: unknown): Promise<ToolOutcome> {
    const started = this.now();
    const given = (args as { session_id?: unknown } | null)?.session_id;
    let logTo = typeof given === 'string' && this.known.has(given) ? given : undefined;
    let outcome: ToolOutcome;
    let attempt: number | undefined;
    try {
      const done = await this.dispatch(parseToolCall(tool, args, this.limits));
      logTo = done.session ?? logTo;
      outcome = { ok: true, value: done.value };
      if (tool === 'submit' && typeof done.value.attempt === 'number') attempt = done.value.attempt;
    } catch (e) {
      // A refusal, or a call the harness could not do (the runtime would not start, a copy failed): either way the
      // agent gets the reason and the trajectory has the call.
      outcome =
        e instanceof ToolError
          ? { ok: false, code: e.code, message: e.message }
          : { ok: false, code: 'failed', message: `${tool}: ${e instanceof Error ? e.message : String(e)}` };
    }
    // The task and instance on every line of a session: score counts a session's calls under its task, and the
    // report shows it beside its instance, even when the session never submitted.
    const spec = logTo ? this.specOf.get(logTo) : undefined;
    await this.log.append(logTo, {
      tool,
      arguments: args ?? {},
      ok: outcome.ok,
      summary: outcome.ok ? summarizeOutcome(outcome.value) : `${outcome.code}: ${summarizeText(outcome.message)}`,
      ms: this.now() - started,
      at: new Date(started).toISOString(),
      ...(spec ? { task_id: spec.task.id, instance: path.basename(spec.instanceDir) } : {}),
      ...(attempt !== undefined ? { attempt } : {}),
    });
    return outcome;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open.values()].map((s) => this.endSession(s)));
    this.root?.remove();
    this.root = undefined;
  }

  private async dispatch(call: ToolCall): Promise<{ session?: string; value: Record<string, unknown> }> {
    if (this.closed) throw new ToolError('closed', 'the server is shutting down');
    if (call.tool === 'list_tasks')
      return { value: { tasks: this.options.tasks.map((t) => ({ task_id: t.task.id, task: t.task.task })) } };
    if (call.tool === 'open_task') {
      const value = await this.openTask(call.taskId);
      return { session: value.session_id as string, value };
    }
    const s = this.session(call.sessionId);
    if (s.busy) throw new ToolError('busy', `session ${s.id} is running another call; wait for its result`);
    s.calls++;
    if (call.tool !== 'submit') {
      if (s.calls > this.limits.maxCalls)
        throw new ToolError('budget', `session ${s.id} has used its ${this.limits.maxCalls} calls; submit an answer`);
      if (this.now() - s.openedAt > this.limits.sessionSeconds * 1000)
        throw new ToolError('budget', `session ${s.id} is past its ${this.limits.sessionSeconds} s; submit an answer`);
    }
    s.busy = true;
    try {
      return { session: s.id, value: await this.inSession(s, call) };
    } finally {
      s.busy = false;
    }
  }

  private session(id: string): Session {
    const s = this.open.get(id);
    if (!s)
      throw new ToolError(
        'unknown-session',
        this.known.has(id)
          ? `session ${id} is closed (submitted, or the server closed it)`
          : `no session ${id}; open one with open_task`,
      );
    return s;
  }

  async closeSession(id: string): Promise<void> {
    const s = this.open.get(id);
    if (s) await this.endSession(s);
  }

  private async endSession(s: Session): Promise<void> {
    this.open.delete(s.id);
    s.abort.abort();
    await s.runtime.close().catch(() => undefined);
    await rm(s.dir, { recursive: true, force: true });
  }

  private async newSessionId(taskId: string): Promise<string> {
    for (let n = 1; ; n++) {
      const id = `${taskId}-${n}`;
      if (!this.known.has(id) && !(await exists(this.log.fileOf(id)))) return id;
    }
  }

  private async openTask(taskId: string): Promise<Record<string, unknown>> {
    const spec = this.byId.get(taskId);
    if (!spec) throw new ToolError('unknown-task', `no task ${taskId} in the tasks file; see list_tasks`);
    if (this.open.size >= this.limits.maxSessions)
      throw new ToolError(
        'too-many-sessions',
        `${this.open.size} sessions are open, the limit (--sessions ${this.limits.maxSessions}); submit one first`,
      );
    const id = await this.newSessionId(taskId);
    this.known.add(id);
    this.specOf.set(id, spec);
    if (!this.root) {
      // Removed at close or when this process exits; what a killed server left is swept by the next one.
      this.root = createRunFolder(this.options.scratchRoot ?? os.tmpdir());
    }
    const dir = path.join(this.root.dir, id);
    const notebook = structuredClone(spec.notebook);
    let runtime: Runtime;
    try {
      // Only the data: the notebooks, instance.json (the labels) and checks.py never enter the session.
      await copyInstanceTree(spec.instanceDir, dir, { ignore: isAnswerFile });
      await writeFile(path.join(dir, SESSION_NOTEBOOK), formatJson(notebook));
      runtime = await this.options.createRuntime();
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
    const s: Session = {
      ...{ id, spec, dir, runtime, notebook, accepted: [], calls: 0 },
      ...{ openedAt: this.now(), busy: false, abort: new AbortController() },
    };
    this.open.set(id, s);
    return describeOpened(s, this.limits);
  }

  private async run(s: Session, finish?: string): Promise<RunResult> {
    const planned = planRunNotebook(s.notebook, s.spec.replay, s.accepted);
    await writeFile(path.join(s.dir, RUN_NOTEBOOK), formatJson(planned.notebook));
    const timeout = this.limits.callTimeoutSeconds;
    const [result] = await s.runtime.run(
      [
        {
          id: s.id,
          instanceDir: s.dir,
          notebook: RUN_NOTEBOOK,
          cells: planned.cells,
          cellTimeoutSeconds: s.spec.cellTimeoutSeconds,
          timeoutSeconds: s.spec.timeoutSeconds + timeout,
          ...(s.spec.prewarm.length > 0 ? { prewarm: s.spec.prewarm } : {}),
          ...(finish ? { probe: { finish, finishTimeoutSeconds: timeout } } : {}),
        },
      ],
      { signal: s.abort.signal },
    );
    return result!;
  }

  private async inSession(
    s: Session,
    call: Exclude<ToolCall, { tool: 'list_tasks' | 'open_task' }>,
  ): Promise<Record<string, unknown>> {
    switch (call.tool) {
      case 'read_notebook':
        return describeNotebook(s.notebook, s.spec, s.accepted);
      case 'run_cell': {
        const report = parseRunCellProbe(await this.run(s, planRunCellProbe(call.code)));
        if (report.status === 'ok') s.accepted.push(call.code);
        return { ...report, accepted_cells: s.accepted.length };
      }
      case 'inspect': {
        const { report, names } = parseInspectProbe(await this.run(s, planInspectProbe(call.name)));
        if (report) return { name: call.name, ...report };
        const found = names!.find((n) => n.name === call.name);
        return found ? { status: 'ok', defined: true, ...found } : { status: 'ok', name: call.name, defined: false };
      }
      case 'edit_cell':
        return editCell(s, call.index, call.source);
      case 'restart': {
        s.accepted = [];
        const failed = interpretReplay(await this.run(s));
        return failed ? { ...failed } : { status: 'ok', replayed: s.spec.replay.length };
      }
      case 'submit': {
        const { attempt } = await this.predictions.append(s.spec.task.task, s.spec.task.id, call.answer);
        await this.endSession(s);
        return { status: 'submitted', task_id: s.spec.task.id, attempt, predictions: this.options.predictions };
      }
    }
  }
}

function editCell(s: Session, index: number, source: string): Record<string, unknown> {
  const cells = listCodeCells(s.notebook);
  if (index >= cells.length)
    throw new ToolError(
      'bad-arguments',
      `edit_cell: "index" ${index} is out of range: the notebook has ${cells.length} code cells (0–${cells.length - 1})`,
    );
  const cell = s.notebook.cells[cells[index]!.cellIndex] as CodeCell;
  cell.source = source;
  cell.outputs = [];
  return {
    status: 'ok',
    index,
    note: 'the edit takes effect at the next run_cell, inspect or restart (each one replays the notebook)',
  };
}

function describeOpened(s: Session, limits: HarnessLimits): Record<string, unknown> {
  const t = s.spec.task;
  return {
    session_id: s.id,
    task_id: t.id,
    task: t.task,
    prompt: t.prompt,
    code_cells: listCodeCells(s.notebook).length,
    target: s.spec.target,
    replay: s.spec.replay,
    execution:
      t.task === 'detect'
        ? 'each call replays the context cells, then runs your code; the target cell is never run for you'
        : 'each call replays the cells before the target (in the replay order) and your accepted cells, then runs your code',
    limits: {
      call_timeout_seconds: limits.callTimeoutSeconds,
      max_calls: limits.maxCalls,
      session_seconds: limits.sessionSeconds,
      max_code_chars: limits.maxCodeChars,
    },
  };
}

function summarizeOutcome(value: Record<string, unknown>): string {
  const error = value.error as { ename?: string; evalue?: string } | undefined;
  const parts = [
    typeof value.status === 'string' ? value.status : undefined,
    typeof value.session_id === 'string' ? `session ${value.session_id}` : undefined,
    error ? `${error.ename}: ${error.evalue}` : undefined,
    typeof value.output === 'string' && value.output ? `output ${summarizeText(value.output, 120)}` : undefined,
    typeof value.reason === 'string' ? value.reason : undefined,
  ].filter(Boolean);
  return summarizeText(parts.length > 0 ? parts.join('; ') : JSON.stringify(value));
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
