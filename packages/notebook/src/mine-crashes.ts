import { stripAnsi } from '@junobench/core';
import type { Notebook } from './notebook-types.js';
import { listCodeCells } from './code-cells.js';

export interface MinedCrash {
  /** Index among code cells (as `crash.cell` counts). */
  codeCell: number;
  executionCount: number | null;
  ename: string;
  evalue: string;
  /** Traceback lines, ANSI escapes removed. */
  traceback: string[];
}

/**
 * Every saved `error` output of the notebook that names an exception, in file order. An error output without an
 * exception name is not one the code raised: a front end saved its own message there (VS Code's "Failed to start the
 * Kernel", "The Kernel crashed while executing code in the current cell"); see mineNamelessErrors.
 */
export function mineNotebookCrashes(nb: Notebook): MinedCrash[] {
  const out: MinedCrash[] = [];
  for (const c of listCodeCells(nb)) {
    for (const o of c.cell.outputs ?? []) {
      if (o.output_type !== 'error' || isNameless(o.ename)) continue;
      out.push({
        codeCell: c.index,
        executionCount: c.executionCount,
        ename: stripAnsi(o.ename),
        evalue: stripAnsi(o.evalue),
        traceback: (o.traceback ?? []).map(stripAnsi),
      });
    }
  }
  return out;
}

export interface NamelessError {
  /** Index among code cells. */
  codeCell: number;
  /** The output's first line of text (its traceback's, as a front end writes its message there). */
  text: string;
}

/** The saved `error` outputs without an exception name (front ends' messages), in file order. */
export function mineNamelessErrors(nb: Notebook): NamelessError[] {
  const out: NamelessError[] = [];
  for (const c of listCodeCells(nb)) {
    for (const o of c.cell.outputs ?? []) {
      if (o.output_type !== 'error' || !isNameless(o.ename)) continue;
      const lines = [o.evalue, ...(o.traceback ?? [])].map((l) => stripAnsi(String(l ?? '')).trim());
      const text = lines.find((l) => l !== '') ?? '';
      out.push({ codeCell: c.index, text: text.length > 120 ? `${text.slice(0, 117)}…` : text });
    }
  }
  return out;
}

function isNameless(ename: unknown): boolean {
  return typeof ename !== 'string' || stripAnsi(ename).trim() === '';
}

/** Top-level modules imported anywhere in the notebook's code cells, sorted and unique. */
export function mineImports(nb: Notebook): string[] {
  const mods = new Set<string>();
  for (const c of listCodeCells(nb)) for (const imp of parseImports(c.source)) mods.add(imp.module.split('.')[0]!);
  return [...mods].sort();
}

/**
 * The names the notebook binds through imports → what they refer to:
 * `pd` → `pandas`, `train_test_split` → `sklearn.model_selection.train_test_split`.
 */
export function mineImportAliases(nb: Notebook): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (const c of listCodeCells(nb)) for (const imp of parseImports(c.source)) aliases[imp.alias] = imp.target;
  return aliases;
}

export interface ParsedImport {
  /** Dotted module path as imported (`sklearn.model_selection`). */
  module: string;
  /** The name bound in the namespace (`pd`, `train_test_split`, `os`). */
  alias: string;
  /** What the alias refers to (`pandas`, `sklearn.model_selection.train_test_split`). */
  target: string;
}

/** Parse the import statements of Python source (not evaluated; magics and shell lines ignored). */
export function parseImports(source: string): ParsedImport[] {
  const out: ParsedImport[] = [];
  for (const stmt of logicalLines(source)) {
    for (const part of stmt.split(';')) {
      const s = part.trim();
      let m: RegExpExecArray | null;
      if ((m = /^import\s+(.+)$/.exec(s))) {
        for (const item of m[1]!.split(',')) {
          const im = /^([A-Za-z_][\w.]*)(?:\s+as\s+([A-Za-z_]\w*))?$/.exec(item.trim());
          if (!im) continue;
          const module = im[1]!;
          if (im[2]) out.push({ module, alias: im[2], target: module });
          else out.push({ module, alias: module.split('.')[0]!, target: module.split('.')[0]! });
        }
      } else if ((m = /^from\s+([A-Za-z_][\w.]*)\s+import\s+(.+)$/.exec(s))) {
        const module = m[1]!;
        const names = m[2]!.replace(/[()]/g, '');
        for (const item of names.split(',')) {
          const im = /^([A-Za-z_]\w*|\*)(?:\s+as\s+([A-Za-z_]\w*))?$/.exec(item.trim());
          if (!im) continue;
          if (im[1] === '*') {
            out.push({ module, alias: '*', target: module });
            continue;
          }
          out.push({ module, alias: im[2] ?? im[1]!, target: `${module}.${im[1]}` });
        }
      }
    }
  }
  return out;
}

// Join bracketed continuations and backslash continuations; drop comments,
// strings-only lines, IPython magics (%) and shell escapes (!).
function logicalLines(source: string): string[] {
  const out: string[] = [];
  let buf = '';
  let depth = 0;
  for (const rawLine of source.split('\n')) {
    let line = rawLine.replace(/#.*$/, '');
    if (depth === 0 && /^\s*[%!]/.test(line)) continue;
    const cont = /\\\s*$/.test(line);
    if (cont) line = line.replace(/\\\s*$/, ' ');
    for (const ch of line) {
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth = Math.max(0, depth - 1);
    }
    buf += `${line} `;
    if (depth === 0 && !cont) {
      if (buf.trim()) out.push(buf.trim());
      buf = '';
    }
  }
  if (buf.trim()) out.push(buf.trim());
  return out;
}
