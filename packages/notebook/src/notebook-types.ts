/** The parts of an nbformat v4 notebook this toolchain reads (the schema allows more). */
export interface Notebook {
  nbformat: 4;
  nbformat_minor: number;
  metadata: Record<string, unknown>;
  cells: NotebookCell[];
}

export type NotebookCell = CodeCell | MarkdownCell | RawCell;

export interface CodeCell {
  cell_type: 'code';
  id?: string;
  source: string | string[];
  execution_count: number | null;
  metadata: Record<string, unknown>;
  outputs: CellOutput[];
}

export interface MarkdownCell {
  cell_type: 'markdown';
  id?: string;
  source: string | string[];
  metadata: Record<string, unknown>;
}

export interface RawCell {
  cell_type: 'raw';
  id?: string;
  source: string | string[];
  metadata: Record<string, unknown>;
}

export type CellOutput =
  | { output_type: 'stream'; name: string; text: string | string[] }
  | { output_type: 'error'; ename: string; evalue: string; traceback: string[] }
  | {
      output_type: 'execute_result';
      execution_count: number | null;
      data: Record<string, unknown>;
      metadata: Record<string, unknown>;
    }
  | { output_type: 'display_data'; data: Record<string, unknown>; metadata: Record<string, unknown> };

/** A code cell with its positions: `index` among code cells (what `crash.cell` counts), `cellIndex` among all cells. */
export interface IndexedCodeCell {
  index: number;
  cellIndex: number;
  source: string;
  executionCount: number | null;
  cell: CodeCell;
}
