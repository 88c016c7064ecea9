import { stripAnsi } from '@junobench/core';

export interface TracebackFrame {
  /** `user`: notebook cell code; `library`: inside site/dist-packages; `other`: stdlib or scripts. */
  kind: 'user' | 'library' | 'other';
  /** File path as printed (absent for cells shown as `Cell In[n]`). */
  file?: string;
  /** Dotted module for library/stdlib files, e.g. `sklearn.utils.validation`. */
  module?: string;
  /** Top-level package of a library frame, e.g. `sklearn`. */
  package?: string;
  /** The execution count of the cell (`Cell In[3]`, `<ipython-input-3-…>`), when shown. */
  executionCount?: number;
  function?: string;
  /** Line of the arrowed (executing) statement. */
  line?: number;
  /** The arrowed code line, without the arrow and line number. */
  code?: string;
  /** Every code line shown for the frame, arrow or not. */
  context: string[];
}

export interface ParsedTraceback {
  ename?: string;
  evalue?: string;
  /** Frames of the last exception in the chain (the one that was raised to the user), outermost first. */
  frames: TracebackFrame[];
  /** Frames of every exception in the chain, in printed order. */
  allFrames: TracebackFrame[];
  /** The deepest frame: where the exception was raised. */
  raisingFrame?: TracebackFrame;
  /** The deepest notebook frame: the user's crashing line. */
  userFrame?: TracebackFrame;
  /** Exception class names of earlier exceptions in the chain. */
  chained: string[];
}

// Frame headers, as printed by IPython 8 (`Cell In[3], line 2`, `File /p.py:12, in f()`),
// IPython 8.0–8.4 (`Input In [3], in <cell line: 2>()`), IPython ≤7
// (`<ipython-input-3-abc> in <module>`, `/path/x.py in f(a, b)`), ipykernel's
// temporary cell files (`/tmp/ipykernel_27/123.py in <module>`) and plain Python.
const CELL_IN = /^Cell In\s*\[(\d+)\],\s*line (\d+)(?:,\s*in (.+))?$/;
const INPUT_IN = /^Input In\s*\[(\d+)\],\s*in (.+)$/;
const IPYTHON_INPUT = /^<ipython-input-(\d+)-[0-9a-f]+>\s+in\s+(.+)$/;
const FILE_COLON = /^File (.+?):(\d+)(?:,\s*in (.+))?$/;
// Source files a frame can point at: Python, Cython (.pyx and its include files
// .pxi/.pxd, e.g. pandas' hashtable helpers) and compiled modules (.pyc). An
// absolute path may contain spaces (`/Users/Jane Doe/anaconda3/...`).
const SOURCE_EXT = String.raw`\.(?:py|pyx|pxi|pxd|pyc|pyi)`;
const LIBRARY_FILE = new RegExp(String.raw`(?:site|dist)-packages/(.+?)${SOURCE_EXT}$`);
const PATH_IN = new RegExp(String.raw`^((?:[A-Za-z]:)?[~./\\].*?${SOURCE_EXT}|\S+${SOURCE_EXT})\s+in\s+(.+)$`);
const PLAIN_PY = /^\s*File "(.+?)", line (\d+)(?:, in (.+))?$/;
const ARROW_LINE = /^\s*-*>\s*(\d+)\s?(.*)$/;
const CONTEXT_LINE = /^\s+(\d+)\s?(.*)$/;
const HEADER = /^(\S+)\s+Traceback \(most recent call last\)/;
const CHAIN_SEPARATORS = [
  /^During handling of the above exception, another exception occurred:/,
  /^The above exception was the direct cause of the following exception:/,
];
const EXCEPTION_LINE =
  /^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt|Iteration|Fault|[A-Z]\w*)?)(?::\s?(.*))?$/;
const IPYKERNEL_TMP = /(^|\/)ipykernel_\d+\/\d+\.py$|\/var\/folders\/.*\/ipykernel_\d+\/\d+\.py$/;

/**
 * Parse a traceback as Jupyter stores it (a list of ANSI-coloured strings, each
 * possibly several lines) or as plain lines. Finds the frames, the crashing
 * notebook line and the deepest (raising) frame, across IPython versions.
 */
export function parseTraceback(
  traceback: readonly string[],
  hint: { ename?: string; evalue?: string } = {},
): ParsedTraceback {
  const lines = traceback.flatMap((item) => stripAnsi(item).split('\n'));
  const segments: TracebackFrame[][] = [[]];
  const chained: string[] = [];
  let current: TracebackFrame | undefined;
  let lastHeaderName: string | undefined;
  let lastExceptionLine: { ename: string; evalue: string } | undefined;

  const startFrame = (f: Omit<TracebackFrame, 'context'>) => {
    current = { ...f, context: [] };
    segments[segments.length - 1]!.push(current);
  };

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = raw.replace(/\s+$/, '');
    if (line.trim() === '' || /^-{10,}$/.test(line.trim())) continue;
    if (CHAIN_SEPARATORS.some((re) => re.test(line.trim()))) {
      if (lastHeaderName) chained.push(lastHeaderName);
      segments.push([]);
      current = undefined;
      continue;
    }
    const header = HEADER.exec(line.trim());
    if (header) {
      lastHeaderName = header[1];
      current = undefined;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = CELL_IN.exec(line.trim()))) {
      startFrame({
        kind: 'user',
        executionCount: Number(m[1]),
        line: Number(m[2]),
        ...(m[3] ? { function: m[3] } : {}),
      });
      continue;
    }
    if ((m = INPUT_IN.exec(line.trim()))) {
      startFrame({ kind: 'user', executionCount: Number(m[1]), function: m[2]! });
      continue;
    }
    if ((m = IPYTHON_INPUT.exec(line.trim()))) {
      startFrame({ kind: 'user', executionCount: Number(m[1]), function: m[2]! });
      continue;
    }
    if ((m = FILE_COLON.exec(line.trim()))) {
      startFrame({ ...classifyFile(m[1]!), line: Number(m[2]), ...(m[3] ? { function: m[3] } : {}) });
      continue;
    }
    if ((m = PLAIN_PY.exec(line))) {
      startFrame({ ...classifyFile(m[1]!), line: Number(m[2]), ...(m[3] ? { function: m[3] } : {}) });
      const next = lines[i + 1];
      if (next !== undefined && /^\s{4,}\S/.test(next) && !PLAIN_PY.test(next)) {
        current!.code = next.trim();
        current!.context.push(next.trim());
        i++;
      }
      continue;
    }
    if (!/^\s/.test(line) && (m = PATH_IN.exec(line.trim()))) {
      startFrame({ ...classifyFile(m[1]!), function: m[2]! });
      continue;
    }
    if (current && (m = ARROW_LINE.exec(line)) && /^\s*-+>/.test(line)) {
      current.line = Number(m[1]);
      current.code = m[2]!.trim();
      current.context.push(m[2]!.trimEnd());
      continue;
    }
    if (current && (m = CONTEXT_LINE.exec(line))) {
      current.context.push(m[2]!.trimEnd());
      continue;
    }
    if (
      !/^\s/.test(line) &&
      (m = EXCEPTION_LINE.exec(line.trim())) &&
      /^[A-Za-z_][\w.]*:|^[A-Za-z_][\w.]*$/.test(line.trim())
    ) {
      lastExceptionLine = { ename: m[1]!, evalue: m[2] ?? '' };
      current = undefined;
      continue;
    }
  }

  const frames = segments[segments.length - 1]!;
  const allFrames = segments.flat();
  const userFrames = frames.filter((f) => f.kind === 'user');
  const result: ParsedTraceback = { frames, allFrames, chained };
  const ename = hint.ename ?? lastExceptionLine?.ename ?? lastHeaderName;
  const evalue = hint.evalue ?? lastExceptionLine?.evalue;
  if (ename !== undefined) result.ename = ename;
  if (evalue !== undefined) result.evalue = evalue;
  if (frames.length > 0) result.raisingFrame = frames[frames.length - 1]!;
  if (userFrames.length > 0) result.userFrame = userFrames[userFrames.length - 1]!;
  return result;
}

/** Classify a file path from a frame: notebook cell file, installed library, or other. */
export function classifyFile(file: string): Pick<TracebackFrame, 'kind' | 'file' | 'module' | 'package'> {
  const norm = file.replace(/\\/g, '/');
  if (IPYKERNEL_TMP.test(norm) || /^<ipython-input-/.test(norm)) return { kind: 'user', file };
  const lib = LIBRARY_FILE.exec(norm);
  if (lib) {
    const parts = lib[1]!.split('/').filter((p) => p !== '__init__');
    return { kind: 'library', file, module: parts.join('.'), package: parts[0]! };
  }
  const std = /\/lib\/python\d(?:\.\d+)?\/(.+?)\.py$/.exec(norm);
  if (std) {
    const parts = std[1]!.split('/').filter((p) => p !== '__init__');
    return { kind: 'other', file, module: parts.join('.'), package: parts[0]! };
  }
  return { kind: 'other', file };
}
