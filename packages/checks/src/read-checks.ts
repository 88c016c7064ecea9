import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, type CheckInfo } from '@junobench/core';
import { tokenizePython, type PyToken } from '@junobench/notebook';

/** The checks file of an instance folder, beside its notebooks. */
export const CHECKS_FILE = 'checks.py';

/** An instance's checks: the file's text and, read from it without running it, each check's name and reason. */
export interface InstanceChecks {
  source: string;
  checks: CheckInfo[];
}

/**
 * The checks of checks.py, without running it: every top-level `def check_…():` (no parameters) in file order, with
 * the first line of its docstring as its reason (docs/checks.md, "The format"). The harness runs the same functions in
 * the kernel; a check written any other way (no docstring, parameters, twice the same name) is refused here, naming
 * the line, so that a failure can always be named with its reason.
 */
export function parseChecks(source: string, file: string = CHECKS_FILE): CheckInfo[] {
  const tokens = tokenizePython(source).filter((t) => t.kind !== 'comment');
  const lineOf = (offset: number) => source.slice(0, offset).split('\n').length;
  const columnOf = (offset: number) => offset - (source.lastIndexOf('\n', offset - 1) + 1);
  const checks: CheckInfo[] = [];
  const lines = new Map<string, number>();
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    const atStatementStart = k === 0 || tokens[k - 1]!.kind === 'newline';
    if (!(t.kind === 'name' && t.text === 'def' && atStatementStart && columnOf(t.start) === 0)) continue;
    const name = tokens[k + 1];
    if (name?.kind !== 'name' || !name.text.startsWith('check_')) continue;
    const line = lineOf(t.start);
    const fail = (message: string, hint: string): never => {
      throw new JunoError('E_INSTANCE', `${name.text}: ${message}`, { location: { file, line }, hint });
    };
    if (lines.has(name.text))
      fail(`defined twice (lines ${lines.get(name.text)} and ${line})`, 'give every check a name of its own');
    lines.set(name.text, line);
    if (tokens[k + 2]?.text !== '(' || tokens[k + 3]?.text !== ')')
      fail('takes parameters', 'a check takes none: it reads the notebook’s variables as globals (def check_x():)');
    const body = findBodyStart(tokens, k + 4);
    const doc = body !== undefined ? tokens[body] : undefined;
    const reason = doc?.kind === 'string' ? firstDocLine(doc.text) : '';
    if (!reason)
      fail(
        'has no docstring',
        'begin the check with a one-line docstring saying what the fix must achieve: it is the reason shown when the check fails',
      );
    checks.push({ name: name.text, reason });
  }
  if (checks.length === 0) {
    throw new JunoError('E_INSTANCE', 'holds no check', {
      location: { file },
      hint: 'define functions named check_…() at the top level, each with a one-line docstring (docs/checks.md), or remove the file',
    });
  }
  return checks;
}

// The first token of a def's body: after the `:` that ends its header (a return annotation may come first) and the
// newline, when the body is on the next lines; right after the `:` for a one-line body.
function findBodyStart(tokens: readonly PyToken[], from: number): number | undefined {
  let k = from;
  while (k < tokens.length && tokens[k]!.text !== ':' && tokens[k]!.kind !== 'newline') k++;
  if (tokens[k]?.text !== ':') return undefined;
  k++;
  if (tokens[k]?.kind === 'newline') k++;
  return k < tokens.length ? k : undefined;
}

/** The first non-blank line of a docstring literal, its prefix, quotes and surrounding space removed. */
export function firstDocLine(literal: string): string {
  const m = /^[rRuU]?("""|'''|"|')([\s\S]*?)(?:\1)?$/.exec(literal);
  if (!m) return '';
  const raw = literal.startsWith('r') || literal.startsWith('R');
  const text = raw ? m[2]! : m[2]!.replace(/\\n/g, '\n').replace(/\\(["'\\])/g, '$1');
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

/** An instance folder's checks.py, parsed; undefined when it has none. */
export async function readInstanceChecks(instanceDir: string): Promise<InstanceChecks | undefined> {
  const file = path.join(instanceDir, CHECKS_FILE);
  let source: string;
  try {
    // Instances are untrusted: a link would make the checks whatever it points at.
    if (!(await lstat(file)).isFile())
      throw new JunoError('E_INSTANCE', `${file} is not a regular file`, {
        location: { file },
        hint: 'checks.py must be a plain file in the instance folder, not a link',
      });
    source = await readFile(file, 'utf8');
  } catch (e) {
    if (e instanceof JunoError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new JunoError('E_INPUT_NOT_FOUND', `cannot read ${file}: ${(e as Error).message}`, { location: { file } });
  }
  return { source, checks: parseChecks(source, file) };
}
