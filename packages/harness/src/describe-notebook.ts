import type { CellOutput, Notebook } from '@junobench/notebook';
import type { HarnessTask } from './harness-task.js';

/** What one output shows as text: a stream's text, an error with its traceback, a result's or display's text/plain. */
export function describeOutput(o: CellOutput): Record<string, unknown> {
  const text = (t: unknown) => (Array.isArray(t) ? t.join('') : typeof t === 'string' ? t : undefined);
  switch (o.output_type) {
    case 'stream':
      return { output_type: o.output_type, name: o.name, text: text(o.text) };
    case 'error':
      return { output_type: o.output_type, ename: o.ename, evalue: o.evalue, traceback: o.traceback };
    default: {
      const plain = text(o.data['text/plain']);
      const kinds = Object.keys(o.data).sort();
      return { output_type: o.output_type, ...(plain !== undefined ? { text: plain } : {}), mime: kinds };
    }
  }
}

/**
 * read_notebook: every cell (markdown included) with its saved outputs as text, code cells numbered as edit_cell and
 * the task count them; then the cells the agent's run_cell calls added.
 */
export function describeNotebook(
  nb: Notebook,
  spec: Pick<HarnessTask, 'target' | 'replay'>,
  accepted: readonly string[],
): Record<string, unknown> {
  let code = 0;
  const cells = nb.cells.map((c) => {
    const source = Array.isArray(c.source) ? c.source.join('') : c.source;
    if (c.cell_type !== 'code') return { cell_type: c.cell_type, source };
    return {
      cell_type: 'code',
      index: code++,
      source,
      execution_count: c.execution_count,
      outputs: c.outputs.map(describeOutput),
    };
  });
  return { cells, target: spec.target, replay: spec.replay, accepted_cells: [...accepted] };
}
