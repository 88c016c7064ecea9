import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { compareCodePoints, isJunoError, type CrashRecord } from '@junobench/core';
import { mineImports, mineNotebookCrashes, readNotebookLean, type Notebook } from '@junobench/notebook';
import { hashCrashId } from './sheet-formats.js';

/**
 * A `.ipynb` found under a folder of notebooks. `abs` is where its bytes are
 * (a link's resolved target, inside the folder); `refused` says why it is
 * not read at all (the link rule of untrusted folders).
 */
export type NotebookFile =
  { rel: string; abs: string; refused?: undefined } | { rel: string; abs?: undefined; refused: string };

/**
 * Every `.ipynb` under a folder, relative (`/`-separated) and sorted by code
 * point, under the rule readInstanceTree applies to instance folders (a folder
 * of notebooks is as untrusted): a symbolic link whose target resolves inside
 * the folder stands for its target; a link leaving the folder, a dangling
 * link, a loop, or a FIFO, socket or device named `.ipynb` is listed with the
 * reason it is refused, so the import rejects it by name rather than reading
 * it, failing on it or dropping it. Links to folders inside are walked (each
 * real folder once per path); a link to a folder outside is refused, as it
 * may hold notebooks that would be left out without a word.
 */
export async function listNotebookFiles(folder: string): Promise<NotebookFile[]> {
  const realRoot = await realpath(folder);
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot + path.sep);
  const out: NotebookFile[] = [];
  async function walk(dir: string, prefix: string, ancestors: ReadonlySet<string>): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      // Jupyter's autosave copies duplicate the notebooks beside them.
      if (e.name === '.ipynb_checkpoints' || e.name === 'node_modules') continue;
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      const abs = path.join(dir, e.name);
      const isNotebook = e.name.toLowerCase().endsWith('.ipynb');
      let target = abs;
      if (e.isSymbolicLink()) {
        try {
          target = await realpath(abs);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          // A dangling or looping link that is not named as a notebook is not one.
          if (isNotebook)
            out.push({
              rel,
              refused:
                code === 'ELOOP'
                  ? 'is a symbolic link that loops (ELOOP): not read'
                  : `is a symbolic link that does not resolve (${code ?? 'error'}): not read`,
            });
          continue;
        }
        const st = await stat(target);
        if (!inside(target)) {
          if (isNotebook || st.isDirectory())
            out.push({
              rel,
              refused: `is a symbolic link to a ${st.isDirectory() ? 'folder' : 'path'} outside the folder imported: not read`,
            });
          continue;
        }
        if (st.isDirectory()) {
          if (ancestors.has(target))
            out.push({ rel, refused: 'is a symbolic link that loops back to a folder above it: not read' });
          else await walk(target, rel, new Set([...ancestors, target]));
        } else if (isNotebook) {
          out.push(
            st.isFile()
              ? { rel, abs: target }
              : { rel, refused: 'is a symbolic link to a FIFO, socket or device, not a regular file: not read' },
          );
        }
        continue;
      }
      if (e.isDirectory()) {
        const real = await realpath(abs);
        await walk(real, rel, new Set([...ancestors, real]));
      } else if (isNotebook) {
        out.push(
          e.isFile() ? { rel, abs } : { rel, refused: 'is a FIFO, socket or device, not a regular file: not read' },
        );
      }
    }
  }
  await walk(realRoot, '', new Set([realRoot]));
  return out.sort((a, b) => compareCodePoints(a.rel, b.rel));
}

/** Longest reject reason kept: a reason may quote the file, which is untrusted. */
const MAX_REASON_CHARS = 200;

/**
 * Read one listed notebook lean (code, counts, saved errors), or the reason
 * it is rejected. Reasons never carry more of a file than a short quote: V8's
 * JSON errors quote the bytes around the fault, which for a file that is not a
 * notebook may be anything, and a value quoted by a schema error may be long.
 */
export async function readListedNotebook(file: NotebookFile): Promise<{ notebook: Notebook } | { reason: string }> {
  if (file.refused !== undefined) return { reason: file.refused };
  try {
    return { notebook: await readNotebookLean(file.abs) };
  } catch (e) {
    if (isJunoError(e)) return { reason: shortReason(e.message) };
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return { reason: `cannot be read (${code})` };
    throw e;
  }
}

function shortReason(message: string): string {
  // `Unexpected token 'r', "root:x:0:0"... is not valid JSON`: keep what is wrong, not the bytes.
  const m = message.replace(
    /Unexpected token [\s\S]* is not valid JSON/,
    'an unexpected character: the text is not JSON',
  );
  return m.length > MAX_REASON_CHARS ? `${m.slice(0, MAX_REASON_CHARS)}… (${m.length} characters)` : m;
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
