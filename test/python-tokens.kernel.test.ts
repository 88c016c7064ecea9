// The TypeScript tokenizer against CPython's own `tokenize` module (the Python
// of the kernel stack): the same comments and the same string literals, on
// tricky cases and on every code cell of the embedded notebooks.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { listInstanceIds } from '@junobench/core';
import { findPython } from '@junobench/runtime';
import { tokenizePython } from '@junobench/notebook';

const repoRoot = path.resolve(import.meta.dirname, '..');

const PROBE = `
import io, json, sys, tokenize
out = []
for src in json.load(sys.stdin):
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
        out.append({
            "comments": [t.string for t in toks if t.type == tokenize.COMMENT],
            "strings": [t.string for t in toks if t.type == tokenize.STRING],
        })
    except (tokenize.TokenError, SyntaxError, IndentationError) as e:
        out.append(None)
print(json.dumps({"version": list(sys.version_info[:2]), "results": out}))
`;

const TRICKY = [
  "s = '#' + x  # c",
  'url = "http://h/#frag"  # real',
  "s = 'it\\'s # not' # yes",
  'p = r"a\\"#b"  # c',
  'doc = """\n# heading\n  keep\n"""  # end',
  'x = [1,  # one\n     2]  # two',
  "b'#' + rb'#' + U'#'  # c",
  'rf = 1  # c\nbr = rf',
  "f'{x!r:>10}' 'y'  # z",
  'f"{d[\'#\']} # x"  # real',
  "f'{{#}} {v:>{w}}' # c",
  'x = 1 + \\\n    2  # c',
  "def f():\n    '''doc # not'''\n    return 1  # yes\n",
];

let python: string;
beforeAll(async () => {
  try {
    python = await findPython({ env: process.env });
  } catch (e) {
    throw new Error(`this test needs the Python kernel stack: run sh tools/setup-python.sh (${(e as Error).message})`);
  }
}, 60_000);

async function pythonTokens(
  sources: string[],
): Promise<{ version: number[]; results: ({ comments: string[]; strings: string[] } | null)[] }> {
  return JSON.parse(
    execFileSync(python, ['-c', PROBE], {
      input: JSON.stringify(sources),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    }),
  );
}

async function embeddedCells(): Promise<string[]> {
  const dir = path.join(repoRoot, 'raw/instances');
  const cells: string[] = [];
  for (const id of await listInstanceIds(dir)) {
    for (const v of ['original', 'reproduced', 'fixed']) {
      const nb = JSON.parse(await readFile(path.join(dir, id, `${v}.ipynb`), 'utf8')) as {
        cells: { cell_type: string; source: string | string[] }[];
      };
      for (const c of nb.cells) {
        if (c.cell_type !== 'code') continue;
        const src = Array.isArray(c.source) ? c.source.join('') : c.source;
        // IPython magics and shell escapes are not Python: CPython's tokenizer cannot judge them.
        if (!/^\s*[%!]/m.test(src)) cells.push(src);
      }
    }
  }
  return cells;
}

describe('tokenizePython agrees with CPython tokenize', () => {
  it('on comments and string literals of tricky cells and of every embedded notebook cell', async () => {
    const sources = [...TRICKY, ...(await embeddedCells())];
    const { version, results } = await pythonTokens(sources);
    // Since 3.12 f-strings are split into several tokens; compare them as whole literals only before that.
    const fstringsWhole = version[0]! === 3 && version[1]! < 12;
    let compared = 0;
    sources.forEach((src, i) => {
      const expected = results[i];
      if (!expected) return;
      compared++;
      const ours = tokenizePython(src);
      expect(
        ours.filter((t) => t.kind === 'comment').map((t) => t.text),
        src,
      ).toEqual(expected.comments);
      if (fstringsWhole)
        expect(
          ours.filter((t) => t.kind === 'string').map((t) => t.text),
          src,
        ).toEqual(expected.strings);
    });
    expect(compared).toBeGreaterThan(TRICKY.length + 100);
  }, 120_000);
});
