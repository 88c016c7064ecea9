import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JunoError } from '@junobench/core';
import type { CommandRunner } from '@junobench/runtime';
import type { SavedDisplay } from './saved-frames.js';

/** The analyser script: parses cells with Python's own `ast` and pyflakes; never executes them. */
export const ANALYZER_PATH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../python/junobench_analyze.py',
);

export interface CellImport {
  module: string;
  alias: string;
  line: number;
  endLine: number;
  /** At the cell's top level (not inside a function, `try` or `if`). */
  top: boolean;
}

export interface CellRead {
  /** `<cell>:<line>:<col>`: ties a read to its table usage. */
  id: string;
  /** The path or URL as the code builds it (string constants folded). */
  path: string;
  /** The call, dotted as written (`pd.read_csv`). */
  call: string;
  kind: string;
  line: number;
  options?: Record<string, unknown>;
  /** A library call that downloads the file itself (`sns.load_dataset('tips')`, read as its URL). */
  fetcher?: 'seaborn.load_dataset';
  /** kind `idx-dataset`: the torchvision dataset (`MNIST`) whose IDX files the root folder holds. */
  dataset?: string;
}

export interface CellFacts {
  index: number;
  parsed: boolean;
  syntaxError?: string;
  defines: string[];
  /** Names the cell uses that it does not bind (nor are builtins). */
  undefined: string[];
  /** Of those, the ones it uses at once (not only inside a function body, which runs when called). */
  undefinedNow: string[];
  /** Every name the cell loads (module aliases included). */
  loads: string[];
  /**
   * Names the cell may change without rebinding them: stored into, the receiver of a method call, the first argument
   * of an in-place function (absent from an older analyser: then every name the cell uses counts).
   */
  mutates?: string[];
  imports: CellImport[];
  shell: { line: number; command: string }[];
  urls: { url: string; line: number; call: string }[];
  reads: CellRead[];
  writes: string[];
  /** Path-like string literals that no reader call takes directly (folded into one, or handed to a helper). */
  paths: string[];
  /** String literals that look like paths or URLs (the ones a rewrite may touch). */
  literals: string[];
  gpu: { line: number; text: string }[];
  /** String constants that are dates (`'1949-01-01'`, `'1950'`). */
  dates?: string[];
  /** `from x import *`: names may come from it. */
  star: boolean;
  magics: { line: number; magic: string; arg: string }[];
}

export interface ColumnUsage {
  /** What the code's operations imply: number, int, text, date, category, bool, missing, target-class, target-number. */
  hints: string[];
  /** Values its filters, maps, replaces and isin mention. */
  values: (string | number | boolean)[];
  cells: number[];
  /** The code cell where each hint was first implied. */
  hintCells?: Record<string, number>;
  /** Named on the read's frames (plain), or on frames holding one-hot columns of another column (dummies). */
  via?: ('plain' | 'dummies')[];
}

export interface TableUsage {
  columns: Record<string, ColumnUsage>;
  /** Column names in the order the code first names them. */
  order?: string[];
  /** Rows the code needs at least (head(n), sample(n)). */
  minRows: number;
  /** Columns the code needs at least (iloc[:, k]). */
  columnCount: number;
  /** Columns the code makes itself (df['new'] = …). */
  made?: string[];
  /** Labels the code looks up in the index (`df.loc['x']`). */
  indexValues?: string[];
  /** `df.columns = [...]`: the names the code gives the file's columns. */
  renamed?: string[];
  /** Saved outputs that show the read's own frame before the code changed it (readSavedTable reads them). */
  displays?: SavedDisplay[];
}

export interface NotebookFacts {
  /** How names were checked: pyflakes, or a coarser walk without it. */
  checker: 'pyflakes' | 'ast';
  cells: CellFacts[];
  /** By read id. */
  tables: Record<string, TableUsage>;
}

export interface AnalyzeOptions {
  python: string;
  run: CommandRunner;
  timeoutMs?: number;
}

/**
 * The static facts of code cells (in the order given, which is the order
 * string constants are folded in), from the analyser script. I/O: one Python
 * process. A failure of the script is a JunoError naming the interpreter.
 */
export async function analyzeCells(
  cells: readonly { index: number; source: string }[],
  options: AnalyzeOptions,
): Promise<NotebookFacts> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-analyze-'));
  try {
    const input = path.join(dir, 'cells.json');
    await writeFile(input, JSON.stringify({ cells }));
    // A fixed hash seed: the same cells give byte-identical facts on every run, whatever the script iterates.
    const r = await options.run(options.python, [ANALYZER_PATH, input], {
      timeoutMs: options.timeoutMs ?? 60_000,
      env: { PYTHONHASHSEED: '0' },
    });
    if (r.exitCode !== 0) {
      throw new JunoError(
        'E_ENV_PYTHON',
        `the notebook analyser failed under ${options.python}: ${lastLine(r.stderr)}`,
        {
          hint: 'it needs Python 3.8+ (pyflakes and IPython make it sharper: Debian python3-pyflakes python3-ipython)',
        },
      );
    }
    return JSON.parse(r.stdout) as NotebookFacts;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .pop() ?? 'no output'
  );
}
