import type { CrashRecord } from '@junobench/core';
import { parseImports, parseTraceback, type TracebackFrame } from '@junobench/notebook';
import { notebookStateEvidence, type NotebookState } from './notebook-state.js';
import { predictLibrary, type LibraryPrediction } from './predict-library.js';
import { refineWithReplay } from './replay-evidence.js';
import { RULE_CONFIDENCE } from './rule-confidence.js';
import type { SuggestInput } from './suggest-input.js';

export type { SuggestInput } from './suggest-input.js';

/** The facts about a crash that the suggestions of every dimension read, computed once. */
export interface CrashFacts {
  input: SuggestInput;
  /** Exception class without module prefix, as printed (`KeyError`). */
  ename: string;
  /** The same, lowercased. */
  eclass: string;
  message: string;
  /** The raised exception and every exception line of its chain. */
  exceptionText: string;
  /** The crashing statement (the deepest notebook frame's arrowed line). */
  statement: string;
  /** Arrowed lines of every notebook frame, outermost (the cell's own statement) first. */
  userLines: string[];
  /** Code the crash is known to sit in: the crashing cell, else the lines the traceback shows of it. */
  cellCode: string;
  /** Library frames between the crashing line and the raise, in call order. */
  libraryFrames: TracebackFrame[];
  /** Dotted modules of every library frame of the chain. */
  libraryModules: string[];
  library: LibraryPrediction;
  /** What the notebook's cells show of its state (undefined without cells, or when they show nothing). */
  notebookState?: NotebookState;
  /** Name a NameError/UnboundLocalError reports missing. */
  missingName?: string;
}

export function collectCrashFacts(input: SuggestInput): CrashFacts {
  const record: Pick<CrashRecord, 'ename' | 'evalue' | 'traceback' | 'imports'> = {
    ename: input.ename,
    evalue: input.evalue,
    traceback: [...input.traceback],
    ...(input.imports ? { imports: [...input.imports] } : {}),
  };
  const parsed = parseTraceback(record.traceback, { ename: input.ename, evalue: input.evalue });
  const frames = parsed.frames.length > 0 ? parsed.frames : parsed.allFrames;
  let deepestUser = -1;
  frames.forEach((f, i) => {
    if (f.kind === 'user') deepestUser = i;
  });
  const userFrames = frames.filter((f) => f.kind === 'user');
  const ename = printedName(input);
  const exceptionLines = input.traceback
    .flatMap((t) => t.split('\n'))
    .filter((l) => /^[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b/.test(l));
  const shownCell = userFrames.length > 0 ? userFrames[0]!.context.join('\n') : '';
  const missing =
    /name '([A-Za-z_]\w*)' is not defined|local variable '([A-Za-z_]\w*)' referenced before assignment|cannot access local variable '([A-Za-z_]\w*)'/.exec(
      input.evalue,
    );
  const missingName = missing?.[1] ?? missing?.[2] ?? missing?.[3];
  const statement = (deepestUser >= 0 ? frames[deepestUser]!.code : undefined) ?? '';
  const eclass = ename.toLowerCase();
  // A crash that a top-to-bottom replay reproduced needs no out-of-order or re-run state, whatever the counts say.
  const notebookState = input.replay?.fileOrder
    ? undefined
    : notebookStateEvidence({ input, eclass, message: input.evalue, statement });
  return {
    input,
    ename,
    eclass,
    message: input.evalue,
    exceptionText: [`${ename}: ${input.evalue}`, ...exceptionLines].join('\n'),
    statement,
    userLines: userFrames.map((f) => f.code ?? '').filter((c) => c !== ''),
    cellCode: input.cell ?? shownCell,
    libraryFrames: frames.slice(deepestUser + 1).filter((f) => f.kind === 'library'),
    libraryModules: parsed.allFrames.filter((f) => f.kind === 'library' && f.module).map((f) => f.module!),
    library: withNotebookState(refineWithReplay(predictLibrary(record), record, input.replay), notebookState),
    ...(notebookState ? { notebookState } : {}),
    ...(missingName ? { missingName } : {}),
  };
}

/**
 * The library estimate reads the traceback only; when the notebook's cells
 * show that the crash comes from its state (a cell run again, cells run out
 * of order), no library caused it — JunoBench labels every notebook-specific
 * crash `None` — whichever library raised it.
 */
function withNotebookState(prediction: LibraryPrediction, state: NotebookState | undefined): LibraryPrediction {
  if (prediction.library === 'None' || !state) return prediction;
  return {
    library: 'None',
    confidence: RULE_CONFIDENCE['library.notebook-cells'],
    rule: 'library.notebook-cells',
    evidence: [
      `${state.why}: the notebook's state, not ${prediction.library}, caused the crash`,
      `from the traceback alone: ${prediction.library} (${prediction.evidence[0] ?? prediction.rule})`,
    ],
  };
}

function printedName(input: SuggestInput): string {
  const bare = input.ename.split('.').pop()!;
  // Sheets lowercase the class (`keyerror`); the traceback prints it as raised.
  for (const line of [...input.traceback].reverse().flatMap((t) => t.split('\n').reverse())) {
    const m = /^(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)(?::|$)/.exec(line.trim());
    if (m && !/^\s/.test(line) && m[1]!.toLowerCase() === bare.toLowerCase()) return m[1]!;
  }
  return bare;
}

/** Names a piece of Python source binds: assignments, for/with/as targets, def/class, imports. */
export function boundNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const imp of safeImports(source)) if (imp.alias !== '*') names.add(imp.alias);
  for (const m of source.matchAll(/^[ \t]*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/gm)) names.add(m[1]!);
  for (const m of source.matchAll(/^[ \t]*((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)\s*(?::[^=\n]+)?(?<![=!<>])=(?!=)/gm)) {
    for (const n of m[1]!.split(',')) names.add(n.trim());
  }
  for (const m of source.matchAll(/^[ \t]*\(?\s*((?:[A-Za-z_]\w*\s*,\s*)+[A-Za-z_]\w*)\s*\)?\s*=(?!=)/gm)) {
    for (const n of m[1]!.split(',')) names.add(n.trim());
  }
  for (const m of source.matchAll(/\bfor\s+\(?([A-Za-z_][\w\s,]*?)\)?\s+in\b/g))
    for (const n of m[1]!.split(',')) names.add(n.trim());
  for (const m of source.matchAll(/\bas\s+([A-Za-z_]\w*)/g)) names.add(m[1]!);
  for (const m of source.matchAll(/^[ \t]*global\s+([\w\s,]+)/gm))
    for (const n of m[1]!.split(',')) names.add(n.trim());
  names.delete('');
  return names;
}

function safeImports(source: string): Array<{ module: string; alias: string }> {
  try {
    return parseImports(source);
  } catch {
    return [];
  }
}
