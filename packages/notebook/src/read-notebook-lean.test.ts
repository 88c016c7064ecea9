import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LeanNotebookScanner, readNotebookLean } from './read-notebook-lean.js';
import { readNotebook } from './read-notebook.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

// Escapes, quotes, braces and non-ASCII inside strings, payloads as strings,
// lists and nested mime bundles, an error output to keep.
const nb = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { name: 'python3', display_name: 'Python "3" {x}', language: 'python' } },
  cells: [
    { cell_type: 'markdown', id: 'm', metadata: {}, source: '# "text": {"data": [1]} é ✓ \\ \n' },
    {
      cell_type: 'code',
      id: 'c1',
      metadata: { tags: ['text', 'data'] },
      execution_count: 3,
      source: ['import pandas as pd\n', 'print("text\\"data")'],
      outputs: [
        { output_type: 'stream', name: 'stdout', text: ['line "one" \\ {]\n', 'é ✓ 𝄞\n'] },
        {
          output_type: 'display_data',
          metadata: {},
          data: {
            'image/png': 'iVBORw0KGgo=',
            'text/plain': ['<Figure "x">'],
            'application/json': { a: ['b', { text: 'c' }] },
          },
        },
        { output_type: 'execute_result', execution_count: 3, metadata: {}, data: { 'text/plain': '42' } },
        {
          output_type: 'error',
          ename: 'KeyError',
          evalue: '\'price\' "q"',
          traceback: ['\u001b[0;31mKeyError\u001b[0m', 'line "2" é'],
        },
      ],
    },
  ],
};

function expectedLean(value: typeof nb): unknown {
  const copy = structuredClone(value) as Record<string, unknown> & { cells: { outputs?: Record<string, unknown>[] }[] };
  const blank = (v: unknown): unknown =>
    typeof v === 'string'
      ? ''
      : Array.isArray(v)
        ? v.map(blank)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, blank(x)]))
          : v;
  for (const c of copy.cells)
    for (const o of c.outputs ?? []) for (const k of ['text', 'data']) if (k in o) o[k] = blank(o[k]);
  return copy;
}

describe('LeanNotebookScanner', () => {
  it.each([
    ['compact', JSON.stringify(nb)],
    ['indented as Jupyter saves', JSON.stringify(nb, null, 1)],
  ])('drops exactly the output payloads (%s), at every chunk boundary', (_n, text) => {
    const want = expectedLean(nb);
    for (let cut = 0; cut <= text.length; cut += 1) {
      const s = new LeanNotebookScanner();
      s.push(text.slice(0, cut));
      s.push(text.slice(cut));
      expect(JSON.parse(s.text()), `cut at ${cut}`).toEqual(want);
    }
    const one = new LeanNotebookScanner();
    for (const ch of text) one.push(ch);
    expect(JSON.parse(one.text())).toEqual(want);
  });
});

describe('readNotebookLean', () => {
  it('reads what pool import needs, like readNotebook without the output payloads', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-lean-'));
    made.push(d);
    const file = path.join(d, 'a.ipynb');
    await writeFile(file, JSON.stringify(nb, null, 1));
    const full = await readNotebook(file);
    const lean = await readNotebookLean(file);
    expect(lean).toEqual(expectedLean(full as unknown as typeof nb));
    expect(lean.cells[1]!.cell_type === 'code' && lean.cells[1]!.outputs[3]).toMatchObject({
      output_type: 'error',
      ename: 'KeyError',
      traceback: ['\u001b[0;31mKeyError\u001b[0m', 'line "2" é'],
    });
  });

  it("gives readNotebook's errors (invalid UTF-8, invalid JSON, not nbformat)", async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-lean-'));
    made.push(d);
    const cases: [string, Buffer | string, RegExp][] = [
      [
        'latin1.ipynb',
        Buffer.from(JSON.stringify({ ...nb, metadata: { x: 'caf\u00e9' } }), 'latin1'),
        /not valid UTF-8/,
      ],
      ['broken.ipynb', '{"cells": [', /invalid JSON/],
      ['v3.ipynb', JSON.stringify({ nbformat: 3, nbformat_minor: 0, worksheets: [] }), /only nbformat 4/],
    ];
    for (const [name, content, message] of cases) {
      await writeFile(path.join(d, name), content);
      await expect(readNotebookLean(path.join(d, name)), name).rejects.toMatchObject({
        code: 'E_NOTEBOOK',
        message: expect.stringMatching(message),
      });
    }
  });
});

describe('memory', () => {
  // A notebook with 40 MB of printed output: the lean read holds chunks, the
  // full read holds the whole text. Checked with a heap limit the full read
  // cannot meet (so the check can fail), not with timings.
  it('reads a notebook with 40 MB of saved output within a 32 MB heap (readNotebook cannot)', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-lean-'));
    made.push(d);
    const file = path.join(d, 'big.ipynb');
    const big = structuredClone(nb);
    const out = big.cells[1]!.outputs![0]! as { text: string | string[] };
    out.text = 'x'.repeat(99).concat('\n').repeat(400_000);
    await writeFile(file, JSON.stringify(big));
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const run = (fn: string) =>
      new Promise<{ stdout: string; failed: boolean }>((resolve) =>
        execFile(
          process.execPath,
          [
            '--max-old-space-size=32',
            '--import',
            'tsx',
            '--input-type=module',
            '-e',
            `import { ${fn} } from './packages/notebook/src/index.ts'; const nb = await ${fn}(${JSON.stringify(file)}); process.stdout.write(nb.cells[1].outputs[3].ename);`,
          ],
          { cwd: root, timeout: 300_000 },
          (error, stdout) => resolve({ stdout, failed: error !== null }),
        ),
      );
    expect(await run('readNotebookLean')).toEqual({ stdout: 'KeyError', failed: false });
    expect((await run('readNotebook')).failed).toBe(true);
  }, 600_000);
});
