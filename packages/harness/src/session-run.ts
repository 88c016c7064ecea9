import type { RunResult } from '@junobench/core';
import type { CodeCell, Notebook } from '@junobench/notebook';
import { planStateProbe, parseStateProbe } from '@junobench/runtime-context';
import type { StateName } from '@junobench/core';
import { MAX_OUTPUT_CHARS } from './harness-limits.js';

/** The notebook a session's call runs, in its scratch folder (the agent's own code and the task's notebook only). */
export const RUN_NOTEBOOK = '.junobench-session.ipynb';
/** The notebook the agent sees, as the scratch folder holds it. */
export const SESSION_NOTEBOOK = 'notebook.ipynb';

const RUN_MARKER = '__junobench_run_cell__:';

/**
 * The notebook one call runs: the session notebook's code cells (as edited), then the agent's accepted cells; and the
 * order: the replay, then every accepted cell. Outputs are left out (a replay makes its own).
 */
export function planRunNotebook(
  nb: Notebook,
  replay: readonly number[],
  accepted: readonly string[],
): { notebook: Notebook; cells: number[] } {
  const cell = (source: string): CodeCell => ({
    cell_type: 'code',
    source,
    execution_count: null,
    metadata: {},
    outputs: [],
  });
  const code = nb.cells.filter((c) => c.cell_type === 'code').map((c) => cell(cellText(c.source)));
  const notebook: Notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: [...code, ...accepted.map(cell)],
  };
  return { notebook, cells: [...replay, ...accepted.map((_, i) => code.length + i)] };
}

const cellText = (s: string | string[]): string => (Array.isArray(s) ? s.join('') : s);

/**
 * The Python of run_cell (the run's `finish` step, after the replay, in the same kernel): the agent's code run as a
 * cell through IPython (magics work), what it printed captured, its last expression's repr and its error with the
 * traceback. The helper deletes itself, so the namespace is as the code left it.
 */
export function planRunCellProbe(code: string): string {
  return `
def __junobench_run_cell(code):
    import contextlib, io, json, re, sys, traceback
    ip = get_ipython()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        r = ip.run_cell(code, store_history=False)
    report = {"status": "ok"}
    text = out.getvalue()
    if len(text) > ${MAX_OUTPUT_CHARS}:
        text = text[:${MAX_OUTPUT_CHARS}] + "\\n[output cut at ${MAX_OUTPUT_CHARS} characters]"
    report["output"] = text
    e = r.error_before_exec or r.error_in_exec
    if e is not None:
        tb = e.__traceback__
        # The first frame is IPython's own call of the code.
        if r.error_in_exec is not None and tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        report["status"] = "error"
        report["error"] = {
            "ename": type(e).__name__,
            "evalue": str(e)[:2000],
            "traceback": [l for l in "".join(traceback.format_exception(type(e), e, tb)).splitlines()][-60:],
        }
    elif r.result is not None:
        try:
            value = repr(r.result)
        except Exception:
            value = "<repr unavailable>"
        report["result"] = re.sub(r" at 0x[0-9A-Fa-f]+", "", value)[:2000]
    print("${RUN_MARKER}" + json.dumps(report))

try:
    __junobench_run_cell(${JSON.stringify(code)})
finally:
    del __junobench_run_cell
`;
}

export const planInspectProbe = (name: string): string => planStateProbe(name);

export interface CellReport {
  status: 'ok' | 'error' | 'timeout' | 'kernel-died' | 'replay-failed' | 'failed';
  output?: string;
  result?: string;
  error?: { ename: string; evalue: string; traceback: string[] };
  /** replay-failed: the cell of the replay (or of the accepted cells) that did not complete, and why. */
  replay?: { cell: number; status: string; ename?: string; evalue?: string; traceback?: string[] };
  reason?: string;
}

/**
 * What a call's run says: the replay's failure when a cell before the new code did not complete, else what the probe
 * printed (the new code's report, or the described names).
 */
export function interpretReplay(result: RunResult): CellReport | undefined {
  const bad = result.cells.find((c) => c.status !== 'ok');
  // Every cell ran: what happened to the new code (a time-out, a dead kernel) is the probe's to say.
  if (result.status === 'completed' || (!bad && result.probe?.finish)) return undefined;
  if (result.status === 'failed' || !bad)
    return { status: 'failed', reason: result.reason ?? `the run ended with status ${result.status}` };
  return {
    status: 'replay-failed',
    replay: {
      cell: bad.index,
      status: bad.status,
      ...(bad.ename ? { ename: bad.ename } : {}),
      ...(bad.evalue !== undefined ? { evalue: bad.evalue } : {}),
      ...(bad.traceback ? { traceback: bad.traceback.slice(-60) } : {}),
    },
    reason: `a cell before the new code did not complete (${bad.status})`,
  };
}

export function parseRunCellProbe(result: RunResult): CellReport {
  const failed = interpretReplay(result);
  if (failed) return failed;
  const finish = result.probe?.finish;
  if (!finish) return { status: 'failed', reason: 'the code did not run' };
  if (finish.status === 'timeout' || finish.status === 'kernel-died')
    return { status: finish.status, reason: finish.reason ?? `the code ended with ${finish.status}` };
  const line = finish.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(RUN_MARKER));
  if (line === undefined) return { status: 'failed', reason: finish.reason ?? 'the code printed no report' };
  try {
    return JSON.parse(line.slice(RUN_MARKER.length)) as CellReport;
  } catch {
    return { status: 'failed', reason: 'the report of the code could not be read' };
  }
}

export function parseInspectProbe(result: RunResult): { report?: CellReport; names?: StateName[] } {
  const failed = interpretReplay(result);
  if (failed) return { report: failed };
  const finish = result.probe?.finish;
  const names = finish ? parseStateProbe(finish.stdout) : undefined;
  if (!names)
    return { report: { status: 'failed', reason: `the inspection did not finish (${finish?.status ?? 'absent'})` } };
  return { names };
}
