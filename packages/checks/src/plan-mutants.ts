import { listCodeCells, planExecution, type ExecutionOrder, type Notebook } from '@junobench/notebook';
import {
  findLastStatement,
  findStatement,
  findTopLevelStatement,
  isAloneInBlock,
  listBoundNames,
  type Statement,
} from './python-statements.js';

/**
 * The families of non-fixes (docs/checks.md, "Mutation testing: `junobench checks test [<id>...]`"): each removes or dodges the crash without fixing it.
 * Statement families change the crashing statement (the traceback's line in the crash cell); cell families the crash
 * cell; `library-patched` an earlier cell.
 */
export const MUTANT_FAMILIES = [
  'statement-deleted',
  'statement-pass',
  'statement-none',
  'statement-print',
  'statement-commented',
  'guard-if-len',
  'guard-if-compare',
  'guard-for-empty',
  'swallow-try',
  'swallow-exec',
  'swallow-suppress',
  'swallow-decorator',
  'swallow-context-manager',
  'cell-deleted',
  'cell-commented',
  'cell-never-called',
  'cell-guarded',
  'output-faked',
  'ipython-custom-exc',
  'library-patched',
] as const;
export type MutantFamily = (typeof MUTANT_FAMILIES)[number];

/** What the mutants are made from: the crashing notebook and where it crashes. */
export interface MutantSource {
  /** The crashing notebook (reproduced.ipynb). */
  notebook: Notebook;
  order: ExecutionOrder;
  /** An explicit replay list (instance.json execution.cells): then no cell is added or removed. */
  cells?: readonly number[];
  crashCell: number;
  /** 1-based line of the crashing statement in the crash cell (the traceback's); default the cell's last statement. */
  crashLine?: number;
  /** The library function the crashing statement called, when a library raised: `library-patched` replaces it. */
  libraryCall?: { module: string; qualname: string };
  /** What the fixed notebook printed where the crash cell runs: `output-faked` prints it instead. */
  fakeOutput?: string;
}

export interface Mutant {
  /** `<family>@<cell>` or `<family>@<cell>:<line>` (code cell and 1-based line of the crashing notebook). */
  id: string;
  family: MutantFamily;
  description: string;
  notebook: Notebook;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The non-fixes of a crashing notebook, one per applicable family, for the innermost crashing statement; when that
 * statement sits inside a compound statement, `statement-pass` and `guard-if-len` are applied to the top-level one too.
 * Pure: the same source gives the same mutants, in MUTANT_FAMILIES order.
 */
export function planMutants(src: MutantSource): Mutant[] {
  const cells = listCodeCells(src.notebook);
  const crash = cells[src.crashCell];
  if (!crash) return [];
  const source = crash.source;
  const lines = source.split('\n');
  const stmt =
    (src.crashLine !== undefined ? findStatement(source, src.crashLine) : undefined) ?? findLastStatement(source);
  const out: Mutant[] = [];
  const c = src.crashCell;
  const withCell = (family: MutantFamily, at: string, description: string, text: string | null) => {
    out.push({ id: `${family}@${at}`, family, description, notebook: replaceCell(src, c, text) });
  };
  if (stmt) {
    const at = `${c}:${stmt.first + 1}`;
    const edit = (family: MutantFamily, description: string, replacement: string[]) =>
      withCell(family, at, description, spliceLines(lines, stmt, replacement));
    const body = lines.slice(stmt.first, stmt.last + 1);
    const ind = stmt.indent;
    const dedented = body.map((l) => (l.startsWith(ind) ? l.slice(ind.length) : l.trimStart()));
    const nested = (prefix: string[]) => [...prefix.map((p) => ind + p), ...body.map((l) => `    ${l}`)];
    const orPass = (rest: string[]) => (rest.length === 0 && isAloneInBlock(source, stmt) ? [`${ind}pass`] : rest);
    const shown = body[0]!.trim();
    edit('statement-deleted', 'the crashing statement deleted', orPass([]));
    edit('statement-pass', 'the crashing statement replaced by pass', [`${ind}pass`]);
    edit('statement-none', 'the crashing statement replaced by _ = None', [`${ind}_ = None`]);
    edit('statement-print', 'the crashing statement replaced by a print of itself', [
      `${ind}print(${JSON.stringify(shown)})`,
    ]);
    edit('statement-commented', 'the crashing statement commented out', [
      ...body.map((l) => `${ind}# ${l.slice(ind.length)}`),
      ...orPass([]),
    ]);
    edit('guard-if-len', 'the crashing statement under if len([]) > 0:', nested(['if len([]) > 0:']));
    edit('guard-if-compare', 'the crashing statement under if 1 > 2:', nested(['if 1 > 2:']));
    edit('guard-for-empty', 'the crashing statement in for _ in []:', nested(['for _ in []:']));
    edit('swallow-try', 'the crashing statement in try/except Exception: pass', [
      `${ind}try:`,
      ...body.map((l) => `    ${l}`),
      `${ind}except Exception:`,
      `${ind}    pass`,
    ]);
    const guarded = ['try:', ...dedented.map((l) => `    ${l}`), 'except Exception:', '    pass'].join('\n');
    edit('swallow-exec', 'the crashing statement in a try/except built inside an exec string', [
      `${ind}exec(${JSON.stringify(guarded)})`,
    ]);
    edit(
      'swallow-suppress',
      "the crashing statement under contextlib.suppress reached through getattr(contextlib, 'suppress')",
      nested(['import contextlib', "with getattr(contextlib, 'suppress')(Exception):"]),
    );
    const names = listBoundNames(stmt).filter((n) => IDENT.test(n));
    edit('swallow-decorator', 'the crashing statement in a function whose decorator swallows its exception', [
      ...[
        'def _jb_forgive(f):',
        '    def run(*a, **k):',
        '        try:',
        '            return f(*a, **k)',
        '        except Exception:',
        '            return None',
        '    return run',
        '@_jb_forgive',
        'def _jb_attempt():',
        ...(names.length > 0 ? [`    global ${names.join(', ')}`] : []),
      ].map((l) => ind + l),
      ...body.map((l) => `    ${l}`),
      `${ind}_jb_attempt()`,
    ]);
    edit(
      'swallow-context-manager',
      'the crashing statement in a context manager that swallows its exception',
      nested([
        'import contextlib as _jb_contextlib',
        '@_jb_contextlib.contextmanager',
        'def _jb_quietly():',
        '    try:',
        '        yield',
        '    except Exception:',
        '        pass',
        'with _jb_quietly():',
      ]),
    );
    const top = findTopLevelStatement(source, stmt.first + 1);
    if (top && top.first !== stmt.first) {
      const atTop = `${c}:${top.first + 1}`;
      withCell(
        'statement-pass',
        atTop,
        'the top-level statement around the crash replaced by pass',
        [...lines.slice(0, top.first), 'pass', ...lines.slice(top.last + 1)].join('\n'),
      );
      withCell(
        'guard-if-len',
        atTop,
        'the top-level statement around the crash under if len([]) > 0:',
        [
          ...lines.slice(0, top.first),
          'if len([]) > 0:',
          ...lines.slice(top.first, top.last + 1).map((l) => `    ${l}`),
          ...lines.slice(top.last + 1),
        ].join('\n'),
      );
    }
  }
  const at = String(c);
  if (!src.cells || src.cells.length === 0) withCell('cell-deleted', at, 'the crash cell deleted', null);
  withCell('cell-commented', at, 'the crash cell commented out', lines.map((l) => `# ${l}`).join('\n'));
  withCell(
    'cell-never-called',
    at,
    'the crash cell wrapped in a function that is never called',
    ['def _jb_never_called():', ...lines.map((l) => `    ${l}`)].join('\n'),
  );
  withCell(
    'cell-guarded',
    at,
    'the crash cell under if len([]) > 0:',
    ['if len([]) > 0:', ...lines.map((l) => `    ${l}`)].join('\n'),
  );
  if (src.fakeOutput && src.fakeOutput.trim() !== '')
    withCell(
      'output-faked',
      at,
      "the crash cell replaced by a print of what the fixed notebook's printed there",
      `print(${JSON.stringify(src.fakeOutput)}, end='')`,
    );
  withCell(
    'ipython-custom-exc',
    at,
    'the crash cell after an IPython handler that swallows every exception (set_custom_exc)',
    ['get_ipython().set_custom_exc((Exception,), lambda *a, **k: None)', ...lines].join('\n'),
  );
  const patch = planLibraryPatch(src);
  if (patch) out.push(patch);
  return out;
}

// The library function the crashing statement calls, replaced in the cell that runs before the crash cell by one that
// returns its first argument: the crash cannot happen, and nothing is fixed.
function planLibraryPatch(src: MutantSource): Mutant | undefined {
  const call = src.libraryCall;
  if (!call) return undefined;
  const parts = call.qualname.split('.');
  if (!/^[A-Za-z_][\w.]*$/.test(call.module) || !parts.every((p) => IDENT.test(p))) return undefined;
  const attr = parts.pop()!;
  const owner = parts.reduce((expr, p) => `getattr(${expr}, ${JSON.stringify(p)})`, '_jb_module');
  const code = [
    'import importlib as _jb_importlib',
    `_jb_module = _jb_importlib.import_module(${JSON.stringify(call.module)})`,
    `setattr(${owner}, ${JSON.stringify(attr)}, lambda *a, **k: a[0] if a else None)`,
  ].join('\n');
  const plan = planExecution(src.notebook, src.order, src.cells);
  const at = plan.indexOf(src.crashCell);
  const before = at > 0 ? plan[at - 1]! : undefined;
  const cells = listCodeCells(src.notebook);
  const target = before ?? src.crashCell;
  const old = cells[target]!.source;
  const text = before !== undefined ? `${old}\n${code}` : `${code}\n${old}`;
  return {
    id: `library-patched@${target}`,
    family: 'library-patched',
    description: `${call.module}.${call.qualname}, the library function the crashing statement calls, replaced by a no-op in an earlier cell`,
    notebook: replaceCell(src, target, text),
  };
}

function spliceLines(lines: readonly string[], s: Statement, replacement: readonly string[]): string {
  return [...lines.slice(0, s.first), ...replacement, ...lines.slice(s.last + 1)].join('\n');
}

/** The notebook with one code cell's source replaced (null: the cell removed), outputs and counts otherwise kept. */
function replaceCell(src: MutantSource, codeCell: number, text: string | null): Notebook {
  const cells = listCodeCells(src.notebook);
  const at = cells[codeCell]!.cellIndex;
  const nb: Notebook = {
    ...src.notebook,
    cells: src.notebook.cells.flatMap((cell, i) => {
      if (i !== at) return [cell];
      if (text === null) return [];
      return [{ ...cell, source: text, outputs: [] } as typeof cell];
    }),
  };
  return nb;
}
