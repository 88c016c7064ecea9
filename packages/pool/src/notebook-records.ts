import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { compareCodePoints, type CrashRecord } from '@junobench/core';
import { mineImports, mineNotebookCrashes, type Notebook } from '@junobench/notebook';
import { hashCrashId } from './sheet-formats.js';

/** Every `.ipynb` under a folder, relative (`/`-separated) and sorted by code point. */
export async function listNotebookFiles(folder: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string, prefix: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      // Jupyter's autosave copies duplicate the notebooks beside them.
      if (e.name === '.ipynb_checkpoints' || e.name === 'node_modules') continue;
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await walk(abs, rel);
      else if (e.name.toLowerCase().endsWith('.ipynb') && (e.isFile() || (await stat(abs)).isFile())) out.push(rel);
    }
  }
  await walk(folder, '');
  return out.sort(compareCodePoints);
}

/**
 * The saved error outputs of one notebook as CrashRecords (source `local`).
 * `notebook` is the name given (path relative to the folder imported). The
 * crash's code cell and execution count go into `columns` so that it can be
 * matched to an instance. Two errors with the same notebook, ename and evalue
 * get ids disambiguated by their code cell.
 */
export function notebookCrashRecords(nb: Notebook, notebook: string): CrashRecord[] {
  const imports = mineImports(nb);
  const crashes = mineNotebookCrashes(nb);
  const used = new Set<string>();
  const records: CrashRecord[] = [];
  crashes.forEach((c, outputIndex) => {
    let id = hashCrashId(notebook, c.ename, c.evalue);
    if (used.has(id)) id = hashCrashId(notebook, c.ename, c.evalue, `cell ${c.codeCell} output ${outputIndex}`);
    used.add(id);
    records.push({
      id,
      notebook,
      source: 'local',
      ename: c.ename,
      evalue: c.evalue,
      traceback: c.traceback,
      imports,
      columns: {
        notebook,
        cell: c.codeCell,
        execution_count: c.executionCount,
        ename: c.ename,
        evalue: c.evalue,
      },
    });
  });
  return records;
}
