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

export interface CallOptions {
  /**
   * The client's cancellation (MCP's notifications/cancelled, or its HTTP request gone): a run under way is stopped,
   * its kernel with it, and the call ends as `cancelled`; the session stays open, as it was before the call.
   */
  signal?: AbortSignal;
}

export type ToolOutcome =
  { ok: true; value: Record<string, unknown> } | { ok: false; code: ToolError['code']; message: string };

export interface Harness {
  readonly limits: HarnessLimits;
  /** One tool call: its outcome (a refusal is an outcome, not a throw), logged in the session's trajectory. */
  call(tool: string, args: unknown, options?: CallOptions): Promise<ToolOutcome>;
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
  /** The call under way: its client's signal, and when it is over (a cancelled one may still be stopping its run). */
  current?: { signal: AbortSignal; over: Promise<void> };
  /** Closes the session at the idle limit; armed while no call is under way. */
  idle?: NodeJS.Timeout;
  abort: AbortController;
}

/** A signal that never fires: the call of a client that cannot cancel. */
const NEVER = new AbortController().signal;
/** setTimeout's longest delay (about 24.8 days); a longer idle limit waits that long. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
  /** Why each closed session was closed: a later call on it is told. */
  private readonly closedWhy = new Map<string, string>();
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

  async call(tool: string, args: unknown, options: CallOptions = {}): Promise<ToolOutcome> {
    const started = this.now();
    const given = (args as { session_id?: unknown } | null)?.session_id;
    let logTo = typeof given === 'string' && this.known.has(given) ? given : undefined;
    let outcome: ToolOutcome;
    let attempt: number | undefined;
    try {
      const done = await this.dispatch(parseToolCall(tool, args, this.limits), options.signal);
      logTo = done.session ?? logTo;
      outcome = { ok: true, value: done.value };
      if (tool === 'submit' && typeof done.value.attempt === 'number') attempt = done.value.attempt;
    } catch (e) {
      // A refusal, or a call the harness could not do (the runtime would not start, a copy failed): either way the
      // agent gets the reason and the trajectory has the call. A call the client cancelled is `cancelled` (named by
      // its tool), whatever its interrupted run threw.
      const stopped = options.signal?.aborted && (!(e instanceof ToolError) || e.code === 'cancelled');
      const error = stopped ? cancelled(tool) : e;
      outcome =
        error instanceof ToolError
          ? { ok: false, code: error.code, message: error.message }
          : {
              ok: false,
              code: 'failed',
              message: `${tool}: ${error instanceof Error ? error.message : String(error)}`,
            };
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
    await Promise.all([...this.open.values()].map((s) => this.endSession(s, 'the server closed it')));
    this.root?.remove();
    this.root = undefined;
  }

  private async dispatch(
    call: ToolCall,
    signal: AbortSignal = NEVER,
  ): Promise<{ session?: string; value: Record<string, unknown> }> {
    if (this.closed) throw new ToolError('closed', 'the server is shutting down');
    if (signal.aborted) throw cancelled(call.tool);
    if (call.tool === 'list_tasks')
      return { value: { tasks: this.options.tasks.map((t) => ({ task_id: t.task.id, task: t.task.task })) } };
    if (call.tool === 'open_task') {
      const value = await this.openTask(call.taskId, signal);
      return { session: value.session_id as string, value };
    }
    const s = await this.claim(call.sessionId);
    s.calls++;
    if (call.tool !== 'submit') {
      if (s.calls > this.limits.maxCalls)
        throw new ToolError('budget', `session ${s.id} has used its ${this.limits.maxCalls} calls; submit an answer`);
      if (this.now() - s.openedAt > this.limits.sessionSeconds * 1000)
        throw new ToolError('budget', `session ${s.id} is past its ${this.limits.sessionSeconds} s; submit an answer`);
    }
    let over!: () => void;
    s.current = { signal, over: new Promise<void>((r) => (over = r)) };
    clearTimeout(s.idle);
    try {
      return { session: s.id, value: await this.inSession(s, call, signal) };
    } finally {
      s.current = undefined;
      over();
      this.armIdle(s);
    }
  }

  /**
   * The open session `id`, free for a call. A call the client cancelled may still be stopping its run: the next call
   * waits for it (a client cancels, then goes on at once) rather than being refused as busy.
   */
  private async claim(id: string): Promise<Session> {
    let s = this.session(id);
    while (s.current?.signal.aborted) {
      await s.current.over;
      s = this.session(id);
    }
    if (s.current) throw new ToolError('busy', `session ${s.id} is running another call; wait for its result`);
    return s;
  }

  /** The idle limit's timer, from now; not for a session that is closed. */
  private armIdle(s: Session): void {
    clearTimeout(s.idle);
    if (this.open.get(s.id) !== s) return;
    const seconds = this.limits.idleSeconds;
    s.idle = setTimeout(
      () => {
        if (this.open.get(s.id) === s && !s.current)
          void this.endSession(s, `it had no call for ${seconds} s (the idle limit, serve --idle)`);
      },
      Math.min(seconds * 1000, MAX_TIMER_MS),
    );
    // The limit never keeps the server running once it is told to stop.
    s.idle.unref();
  }

  private session(id: string): Session {
    const s = this.open.get(id);
    if (!s)
      throw new ToolError(
        'unknown-session',
        this.known.has(id)
          ? `session ${id} is closed: ${this.closedWhy.get(id) ?? 'it could not be opened'}; open_task opens a new one`
          : `no session ${id}; open one with open_task`,
      );
    return s;
  }

  async closeSession(id: string): Promise<void> {
    const s = this.open.get(id);
    if (s) await this.endSession(s, 'the server closed it');
  }

  private async endSession(s: Session, why: string): Promise<void> {
    this.open.delete(s.id);
    this.closedWhy.set(s.id, why);
    clearTimeout(s.idle);
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

  private async openTask(taskId: string, signal: AbortSignal): Promise<Record<string, unknown>> {
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
      ...{ openedAt: this.now(), abort: new AbortController() },
    };
    this.open.set(id, s);
    // Cancelled while it was being set up: no session stays open for a client that no longer waits for it.
    if (signal.aborted) {
      await this.endSession(s, 'its open_task was cancelled');
      throw cancelled('open_task');
    }
    this.armIdle(s);
    return describeOpened(s, this.limits);
  }

  /**
   * One run of the session's notebook: the replay, the `accepted` cells, then `finish` (the new code). Stopped when
   * the session closes or the client cancels; a cancelled run throws `cancelled` (its result is not the agent's).
   */
  private async run(
    s: Session,
    how: { finish?: string; accepted?: readonly string[]; signal: AbortSignal },
  ): Promise<RunResult> {
    const { finish, accepted = s.accepted, signal } = how;
    const planned = planRunNotebook(s.notebook, s.spec.replay, accepted);
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
      { signal: AbortSignal.any([s.abort.signal, signal]) },
    );
    if (signal.aborted) throw cancelled('the call');
    return result!;
  }

  private async inSession(
    s: Session,
    call: Exclude<ToolCall, { tool: 'list_tasks' | 'open_task' }>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    switch (call.tool) {
      case 'read_notebook':
        return describeNotebook(s.notebook, s.spec, s.accepted);
      case 'run_cell': {
        const report = parseRunCellProbe(await this.run(s, { finish: planRunCellProbe(call.code), signal }));
        if (report.status === 'ok') s.accepted.push(call.code);
        return { ...report, accepted_cells: s.accepted.length };
      }
      case 'inspect': {
        const { report, names } = parseInspectProbe(await this.run(s, { finish: planInspectProbe(call.name), signal }));
        if (report) return { name: call.name, ...report };
        const found = names!.find((n) => n.name === call.name);
        return found ? { status: 'ok', defined: true, ...found } : { status: 'ok', name: call.name, defined: false };
      }
      case 'edit_cell':
        return editCell(s, call.index, call.source);
      case 'restart': {
        // The accepted cells are forgotten once the replay ran: a cancelled restart leaves the session as it was.
        const failed = interpretReplay(await this.run(s, { accepted: [], signal }));
        s.accepted = [];
        return failed ? { ...failed } : { status: 'ok', replayed: s.spec.replay.length };
      }
      case 'submit': {
        const { attempt } = await this.predictions.append(s.spec.task.task, s.spec.task.id, call.answer);
        await this.endSession(s, 'its answer was submitted');
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
      idle_seconds: limits.idleSeconds,
      max_code_chars: limits.maxCodeChars,
    },
  };
}

function cancelled(tool: string): ToolError {
  return new ToolError(
    'cancelled',
    `${tool} was cancelled (by the client, or its connection closed): its run was stopped, and the session is as it was before the call`,
  );
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
