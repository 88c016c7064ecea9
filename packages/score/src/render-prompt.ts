import { cellSource, type Notebook } from '@junobench/notebook';
import type { RepairExecution, TaskError, TaskVocabularies } from '@junobench/core';

const fence = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

/** The detect question in plain text: numbered cells, the target last. */
export function renderDetectPrompt(context: readonly string[], target: string): string {
  const n = context.length;
  const t = n + 1;
  const intro =
    n === 0
      ? `Below is the first code cell executed in a fresh kernel of a Python Jupyter notebook (comments and outputs removed). It is cell 1.`
      : `Below are code cells of a Python Jupyter notebook in the order in which they were executed in one kernel (comments and outputs removed). ${n === 1 ? 'Cell 1' : `Cells 1 to ${n}`} ran without raising an exception; cell ${t} is executed next.`;
  const cells = context.map((code, i) => `### Cell ${i + 1}\n${fence(code)}`);
  cells.push(`### Cell ${t} (executed next)\n${fence(target)}`);
  return [
    intro,
    '',
    ...cells.flatMap((c) => [c, '']),
    `Question: does cell ${t} raise an exception when it runs? If it does, which exception class?`,
    '',
    `Answer with one JSON object, e.g. {"crashes": true, "exception": "KeyError"} or {"crashes": false}.`,
  ].join('\n');
}

/**
 * A notebook as text: markdown cells as they are, code cells numbered from 0
 * (as `error.cell` counts them) with their saved execution count, and the
 * error output under the crashing cell.
 */
export function renderNotebook(nb: Notebook, error: TaskError): string {
  const out: string[] = [];
  let code = 0;
  for (const cell of nb.cells) {
    const text = cellSource(cell).replace(/\s+$/, '');
    if (cell.cell_type !== 'code') {
      out.push(`--- ${cell.cell_type} ---`, text, '');
      continue;
    }
    const count = cell.execution_count === null ? '' : ` [execution count ${cell.execution_count}]`;
    out.push(`--- code cell ${code}${count} ---`, text, '');
    if (code === error.cell) {
      out.push(`--- error output of code cell ${code} ---`, error.traceback.join('\n').replace(/\s+$/, ''), '');
    }
    code++;
  }
  return out.join('\n');
}

const DIMENSION_HELP: Record<keyof TaskVocabularies, string> = {
  library: 'library: the library whose use caused the crash ("None" when no library did, e.g. a notebook-state error)',
  crashType: 'crashType: the kind of crash',
  rootCause: 'rootCause: why it happened',
  pipelineStage: 'pipelineStage: the ML pipeline stage of the crashing code',
};

export function renderDiagnosePrompt(nb: Notebook, error: TaskError, vocabularies: TaskVocabularies): string {
  const dims = (Object.keys(DIMENSION_HELP) as (keyof TaskVocabularies)[]).map(
    (d) => `- ${DIMENSION_HELP[d]}; one of: ${vocabularies[d].map((v) => JSON.stringify(v)).join(', ')}`,
  );
  return [
    `A Python Jupyter notebook crashed with ${error.ename} in code cell ${error.cell}. Its cells follow (code cells numbered from 0), with the error output of the crashing cell.`,
    '',
    renderNotebook(nb, error),
    'Classify the crash in four dimensions, each with exactly one value from its list:',
    ...dims,
    '',
    'Answer with one JSON object: {"library": "…", "crashType": "…", "rootCause": "…", "pipelineStage": "…"}',
  ].join('\n');
}

export function describeExecution(execution: Pick<RepairExecution, 'order' | 'cells'>): string {
  if (execution.cells && execution.cells.length > 0) {
    return `code cells in this order: ${execution.cells.join(', ')} (so keep the number of code cells)`;
  }
  return execution.order === 'file'
    ? 'every code cell from top to bottom'
    : // The crashing notebook's cells after the crash have no count (they never ran) and must run in the repair: said
      // only as "cells without a count are not run", a tool kept them without one and its repair was not-executed.
      'code cells in the order of their execution counts; a code cell without an execution count is not run, so give every code cell one (the cells that never ran, such as those after the crash, have none)';
}

export function renderRepairPrompt(
  nb: Notebook,
  error: TaskError,
  execution: RepairExecution,
  files: readonly string[],
): string {
  const listed =
    files.length === 0
      ? 'no other files'
      : files.length <= 20
        ? files.join(', ')
        : `${files.slice(0, 20).join(', ')} and ${files.length - 20} more`;
  return [
    `A Python Jupyter notebook crashed with ${error.ename} in code cell ${error.cell}. Its cells follow (code cells numbered from 0), with the error output of the crashing cell.`,
    '',
    renderNotebook(nb, error),
    'Repair the notebook: remove the cause of the crash and keep what the notebook is for.',
    `The repaired notebook runs in a fresh kernel, with its folder as working directory (holding ${listed}), ${describeExecution(execution)}; at most ${execution.cellTimeoutSeconds} s per cell and ${execution.timeoutSeconds} s in all.`,
    // Repairs are scored in a sandbox without network: a `pip install` cell fails there (and, unsandboxed, would change
    // the scorer's Python).
    'It has no network access and nothing can be installed: use the libraries that are there (those the notebook imports).',
    'It counts as repaired when it runs to the end without an exception and every code cell above is still there and runs, the crashing cell included.',
    'Edit cells as needed and add cells if you must, but do not delete, empty or comment out cells, and do not add exception handlers (try/except, contextlib.suppress) or guards such as `if False:`: hiding the crash is not repairing it.',
    '',
    'Answer with one JSON object: {"cells": ["<code of the first code cell to run>", …]} (every code cell of the repaired notebook, in the order they should run) or {"notebook": <the repaired notebook as nbformat 4 JSON>}.',
  ].join('\n');
}
