import {
  isJunoError,
  type AddedGuard,
  type MissingCell,
  type RepairAttemptResult,
  type RepairOutcome,
  type RunResult,
} from '@junobench/core';
import { judgeChecks, type ChecksVerdict } from '@junobench/checks';
import {
  findNulCells,
  hasComments,
  isEmptyCell,
  listCodeCells,
  matchCells,
  normalizeCell,
  planExecution,
  validateNotebook,
  type ExecutionOrder,
  type Notebook,
} from '@junobench/notebook';

export type MissingHow = MissingCell['how'];

/** What can be decided about a repair before running it. */
export interface RepairCheck {
  /** The repaired notebook, when it is one. */
  notebook?: Notebook;
  /** Code cells of the repaired notebook to execute, in order. */
  plan: number[];
  /** For each code cell of the crashing notebook: its counterpart in the repair (null: none / not required). */
  counterpart: (number | null)[];
  /** Code cells of the crashing notebook that must still be there and run (the non-empty ones). */
  required: number[];
  missing: MissingCell[];
  suppressed: AddedGuard[];
  disabled: AddedGuard[];
  /** Set when the repair fails before execution: invalid, cells missing, suppressed, disabled. */
  failure?: { outcome: RepairOutcome; reason: string };
}

export interface RepairExecutionSpec {
  order: ExecutionOrder;
  cells?: readonly number[];
}

/**
 * A notebook answer with the cell fields nbformat gives defaults filled in: `metadata` {} on every cell, `outputs` []
 * and `execution_count` null on code cells, and from nbformat 4.5 on a unique `id`. A language model asked for a
 * notebook writes cells with `cell_type` and `source` only; those fields change nothing that is scored (outputs are
 * not read, a missing count is null) so refusing them measured the answer's JSON, not the repair. Anything else
 * stays as given and is validated as it is; the answer itself is not modified.
 */
export function fillNotebookDefaults(candidate: unknown): unknown {
  if (!isRecord(candidate) || !Array.isArray(candidate.cells)) return candidate;
  const withIds = typeof candidate.nbformat_minor === 'number' && candidate.nbformat_minor >= 5;
  const taken = new Set(candidate.cells.flatMap((c) => (isRecord(c) && typeof c.id === 'string' ? [c.id] : [])));
  let next = 0;
  const freshId = () => {
    while (taken.has(`cell-${next}`)) next++;
    taken.add(`cell-${next}`);
    return `cell-${next}`;
  };
  const cells = candidate.cells.map((c) => {
    if (!isRecord(c) || typeof c.cell_type !== 'string') return c;
    const code = c.cell_type === 'code';
    return {
      ...(withIds && !('id' in c) ? { id: freshId() } : {}),
      ...(!('metadata' in c) ? { metadata: {} } : {}),
      ...(code && !('outputs' in c) ? { outputs: [] } : {}),
      ...(code && !('execution_count' in c) ? { execution_count: null } : {}),
      ...c,
    };
  });
  return { ...candidate, cells };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Static part of "resolved" (see docs/scoring.md, "What counts as resolved, and why"):
 *
 * - the repair is an nbformat v4 notebook whose execution plan exists;
 * - every non-empty code cell of the crashing notebook is still there: it has
 *   a counterpart in the repair (identical, or at least CELL_MATCH_THRESHOLD
 *   similar on its tokens, matched one to one) — a cell deleted, emptied,
 *   commented out, turned into a string or rewritten beyond recognition has none;
 * - the repair adds no exception handler (`except`, `contextlib.suppress`) to
 *   any cell, and no IPython/sys exception hook: catching the crash hides it,
 *   it does not repair it;
 * - the repair adds no constant-false guard (`if False:`, `while 0:`) to a
 *   cell, which would keep its code from running.
 */
export function checkRepair(crashing: Notebook, candidate: unknown, execution: RepairExecutionSpec): RepairCheck {
  const original = listCodeCells(crashing).map((c) => c.source);
  const originalTokens = original.map(normalizeCell);
  const required = originalTokens.flatMap((t, i) => (isEmptyCell(t) ? [] : [i]));
  const base: RepairCheck = {
    plan: [],
    counterpart: original.map(() => null),
    required,
    missing: [],
    suppressed: [],
    disabled: [],
  };

  let notebook: Notebook;
  try {
    notebook = validateNotebook(fillNotebookDefaults(candidate), 'the repaired notebook');
  } catch (e) {
    // ajv's first complaint about a cell that lacks a field can be another cell type's ("must NOT have additional
    // properties"): say what a notebook answer needs, and the simpler form.
    const reason = `${isJunoError(e) ? e.message : String(e)} — a "notebook" answer must be nbformat 4 JSON (cells may leave out metadata, outputs, execution_count and id, which get nbformat's defaults; nothing else); or answer {"cells": [...]} with the code cells only`;
    return { ...base, failure: { outcome: 'invalid', reason } };
  }
  const nul = findNulCells(notebook);
  if (nul.length > 0) {
    const reason = `code cell ${nul.join(', ')} of the repaired notebook holds a NUL byte (\\u0000), which no Python kernel can run`;
    return { ...base, notebook, failure: { outcome: 'invalid', reason } };
  }
  const repaired = listCodeCells(notebook).map((c) => c.source);
  const tooBig = oversizedRepair(original, repaired);
  if (tooBig) return { ...base, notebook, failure: { outcome: 'invalid', reason: tooBig } };
  let plan: number[];
  try {
    plan = planExecution(notebook, execution.order, execution.cells);
  } catch (e) {
    const reason = isJunoError(e) ? e.message : String(e);
    return {
      ...base,
      notebook,
      failure: {
        outcome: 'invalid',
        reason: `${reason}: with an explicit replay list the repair must keep the number of code cells`,
      },
    };
  }
  const repairedTokens = repaired.map(normalizeCell);
  const { counterpart } = matchCells(originalTokens, repairedTokens);
  for (let i = 0; i < counterpart.length; i++) if (!required.includes(i)) counterpart[i] = null;

  const missing = required
    .filter((i) => counterpart[i] === null)
    .map((i) => ({ cell: i, how: describeMissing(i, counterpart, repaired, repairedTokens) }));

  const suppressed: AddedGuard[] = [];
  const disabled: AddedGuard[] = [];
  const from = new Map<number, number>();
  counterpart.forEach((j, i) => {
    if (j !== null) from.set(j, i);
  });
  repairedTokens.forEach((tokens, j) => {
    const i = from.get(j);
    const before = i === undefined ? [] : originalTokens[i]!;
    const added = (count: (t: readonly string[]) => number) => count(tokens) - count(before);
    if (added(countHandlers) > 0)
      suppressed.push({ cell: j, what: 'adds an exception handler (try/except or contextlib.suppress)' });
    if (added(countHooks) > 0)
      suppressed.push({ cell: j, what: 'installs an exception hook (set_custom_exc, excepthook, showtraceback)' });
    if (added(countFalseGuards) > 0)
      disabled.push({
        cell: j,
        what: 'adds a constant-false guard (if False:, while 0:, …) that keeps code from running',
      });
  });

  const check: RepairCheck = { notebook, plan, counterpart, required, missing, suppressed, disabled };
  if (missing.length > 0) {
    const list = missing.map((m) => `${m.cell} (${m.how})`).join(', ');
    check.failure = {
      outcome: 'cells-missing',
      reason: `code cell${missing.length > 1 ? 's' : ''} ${list} of the crashing notebook ${missing.length > 1 ? 'are' : 'is'} no longer there`,
    };
  } else if (suppressed.length > 0) {
    check.failure = {
      outcome: 'suppressed',
      reason: `code cell ${suppressed[0]!.cell} of the repair ${suppressed[0]!.what}`,
    };
  } else if (disabled.length > 0) {
    check.failure = {
      outcome: 'disabled',
      reason: `code cell ${disabled[0]!.cell} of the repair ${disabled[0]!.what}`,
    };
  }
  return check;
}

/**
 * A repaired cell, or a repair, far larger than the crashing notebook gives it
 * any reason to be. Comparing cells costs their lengths multiplied, on the
 * scoring process's own time before any execution limit applies: a 10 MB cell
 * of filler took minutes. Real repairs change a few lines.
 */
export const REPAIR_SIZE_LIMITS = { cellChars: 200_000, totalChars: 2_000_000, overOriginal: 4 } as const;

function oversizedRepair(original: readonly string[], repaired: readonly string[]): string | undefined {
  const cellCap = Math.max(
    REPAIR_SIZE_LIMITS.cellChars,
    REPAIR_SIZE_LIMITS.overOriginal * Math.max(0, ...original.map((c) => c.length)),
  );
  const totalCap = Math.max(
    REPAIR_SIZE_LIMITS.totalChars,
    REPAIR_SIZE_LIMITS.overOriginal * original.reduce((n, c) => n + c.length, 0),
  );
  const big = repaired.findIndex((c) => c.length > cellCap);
  if (big >= 0)
    return `code cell ${big} of the repair has ${repaired[big]!.length} characters, more than the ${cellCap} a repaired cell may have`;
  const total = repaired.reduce((n, c) => n + c.length, 0);
  if (total > totalCap)
    return `the repair's code cells have ${total} characters, more than the ${totalCap} a repair may have`;
  return undefined;
}

// Where the cell was, the repair has: nothing (deleted), an empty cell, a
// commented-out cell, or different code. "Where it was" is between the
// counterparts of its nearest matched neighbours.
function describeMissing(
  i: number,
  counterpart: readonly (number | null)[],
  repaired: readonly string[],
  tokens: readonly string[][],
): MissingHow {
  let lo = -1;
  for (let k = i - 1; k >= 0; k--) {
    if (counterpart[k] !== null) {
      lo = counterpart[k]!;
      break;
    }
  }
  let hi = repaired.length;
  for (let k = i + 1; k < counterpart.length; k++) {
    if (counterpart[k] !== null) {
      hi = counterpart[k]!;
      break;
    }
  }
  const used = new Set(counterpart.filter((j): j is number => j !== null));
  for (let j = lo + 1; j < hi; j++) {
    if (used.has(j)) continue;
    if (isEmptyCell(tokens[j]!)) return hasComments(repaired[j]!) ? 'commented-out' : 'emptied';
    return 'rewritten';
  }
  return 'deleted';
}

function countHandlers(tokens: readonly string[]): number {
  let n = 0;
  for (let k = 0; k < tokens.length; k++) {
    if (tokens[k] === 'except') n++;
    else if (tokens[k] === 'suppress' && tokens[k + 1] === '(') n++;
  }
  return n;
}

const HOOKS = new Set(['set_custom_exc', 'excepthook', 'showtraceback', '_showtraceback']);
function countHooks(tokens: readonly string[]): number {
  return tokens.filter((t) => HOOKS.has(t)).length;
}

const FALSY = new Set(['False', '0', 'None', "''", '""', '0.0']);
function countFalseGuards(tokens: readonly string[]): number {
  let n = 0;
  for (let k = 0; k < tokens.length; k++) {
    if (tokens[k] !== 'if' && tokens[k] !== 'while' && tokens[k] !== 'elif') continue;
    if (FALSY.has(tokens[k + 1]!) && tokens[k + 2] === ':') n++;
    else if (tokens[k + 1] === 'not' && (tokens[k + 2] === 'True' || tokens[k + 2] === '1') && tokens[k + 3] === ':')
      n++;
  }
  return n;
}

/** The verdict on one repaired notebook (a scorecard result without its task, instance and attempt). */
export type RepairVerdict = Omit<RepairAttemptResult, 'task' | 'instance' | 'attempt'>;

/**
 * The verdict on a repair from its static check and (when the check passed)
 * its run: resolved when the run completed, every required cell's
 * counterpart — the crash cell's above all — ran without error, and, with
 * `checks` (what the harness reported after the last cell), nothing was
 * hidden and every check of the instance passed (docs/checks.md).
 */
export function judgeRepair(
  check: RepairCheck,
  crashCell: number,
  result?: RunResult,
  checks?: ChecksVerdict,
): RepairVerdict {
  const statics = {
    ...(check.missing.length > 0 ? { missing: check.missing } : {}),
    ...(check.suppressed.length > 0 ? { suppressed: check.suppressed } : {}),
    ...(check.disabled.length > 0 ? { disabled: check.disabled } : {}),
  };
  const crashCounterpart = check.counterpart[crashCell] ?? null;
  if (check.failure) {
    return {
      resolved: false,
      outcome: check.failure.outcome,
      reason: check.failure.reason,
      ...statics,
      crashCell: { counterpart: crashCounterpart, ran: false },
    };
  }
  if (!result) return { resolved: false, outcome: 'failed', reason: 'the repair was not run' };
  const ranOk = new Set(result.cells.filter((c) => c.status === 'ok').map((c) => c.index));
  const crash = { counterpart: crashCounterpart, ran: crashCounterpart !== null && ranOk.has(crashCounterpart) };
  const errorCell = result.cells.find((c) => c.status === 'error');
  const error = errorCell
    ? { cell: errorCell.index, ename: errorCell.ename ?? '', evalue: errorCell.evalue ?? '' }
    : undefined;
  // The run numbers the repair's cells; missing and notExecuted number the crashing notebook's: say which is which.
  const repairCell = (j: number) => {
    const i = check.counterpart.indexOf(j);
    return `code cell ${j} of the repair (${i >= 0 ? `code cell ${i} of the crashing notebook` : 'a cell the repair added'})`;
  };
  const notExecuted = check.required.filter((i) => !ranOk.has(check.counterpart[i]!));
  const common = {
    ...statics,
    crashCell: crash,
    ...(notExecuted.length > 0 ? { notExecuted } : {}),
    ...(error ? { error } : {}),
    ...(checks && checks.checks.length > 0 ? { checks: checks.checks } : {}),
    ...(checks && checks.evidence.length > 0 ? { evidence: checks.evidence } : {}),
  };
  switch (result.status) {
    case 'timeout':
      return { resolved: false, outcome: 'timeout', reason: result.reason ?? 'timed out', ...common };
    case 'kernel-died':
      return { resolved: false, outcome: 'kernel-died', reason: result.reason ?? 'the kernel died', ...common };
    case 'failed':
      return {
        resolved: false,
        outcome: 'failed',
        reason: `the runner could not run the repair: ${result.reason ?? 'unknown reason'}`,
        ...common,
      };
    case 'error':
      return {
        resolved: false,
        outcome: 'crashed',
        reason: error
          ? `${error.ename}: ${shorten(error.evalue)} in ${repairCell(error.cell)}`
          : (result.reason ?? 'a cell raised'),
        ...common,
      };
    default:
      break;
  }
  if (errorCell) {
    return {
      resolved: false,
      outcome: 'crashed',
      reason: `${error!.ename}: ${shorten(error!.evalue)} in ${repairCell(error!.cell)}`,
      ...common,
    };
  }
  if (notExecuted.length > 0) {
    const which = notExecuted.includes(crashCell)
      ? `the crash cell (code cell ${crashCell})`
      : `code cell${notExecuted.length > 1 ? 's' : ''} ${notExecuted.join(', ')}`;
    return {
      resolved: false,
      outcome: 'not-executed',
      reason: `${which} of the crashing notebook did not run in the repair (check its execution order/counts)`,
      ...common,
    };
  }
  // Hiding (runtime evidence) outranks a failed check: a library function replaced makes the repair no repair of the
  // notebook at all (invalid); an exception swallowed, or the tracing switched off, hid the crash (suppressed).
  const failure = checks ? judgeChecks(checks, repairCell) : undefined;
  if (failure?.kind === 'hiding')
    return {
      resolved: false,
      outcome: failure.evidence === 'replaced' ? 'invalid' : 'suppressed',
      reason: failure.reason,
      ...common,
    };
  if (failure) return { resolved: false, outcome: 'checks-failed', reason: failure.reason, ...common };
  return { resolved: true, outcome: 'resolved', ...common };
}

function shorten(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 160 ? `${one.slice(0, 157)}…` : one;
}
