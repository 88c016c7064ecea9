// Test-only: never exported from index.ts, never imported by library code.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `<dir>/notebook.ipynb` holding these code cells (nbformat 4.5, a
 * Python kernelspec, no outputs), plus any files given by relative path:
 * the smallest instance folder a runtime will run.
 */
export async function writeCodeNotebook(
  dir: string,
  cells: readonly string[],
  files: Record<string, string> = {},
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const nb = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: cells.map((source, i) => ({
      id: `c${i}`,
      cell_type: 'code',
      metadata: {},
      execution_count: null,
      outputs: [],
      source,
    })),
  };
  await writeFile(path.join(dir, 'notebook.ipynb'), JSON.stringify(nb));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}
