import { readFile, stat } from 'node:fs/promises';
import type { ValidateFunction } from 'ajv-draft-04';
import {
  JunoError,
  MAX_JSON_DEPTH,
  assertReadableFile,
  findTooDeep,
  formatBytes,
  locateInvalidUtf8,
} from '@junobench/core';
import type { Notebook } from './notebook-types.js';
import { LATEST_MINOR, compileNbformatValidator } from './compiled-nbformat.js';

const validators = new Map<number, ValidateFunction>();

function validatorFor(minor: number): ValidateFunction {
  const m = Math.min(Math.max(minor, 0), LATEST_MINOR);
  let v = validators.get(m);
  if (!v) {
    v = compileNbformatValidator(m);
    validators.set(m, v);
  }
  return v;
}

/**
 * Read and validate an nbformat v4 notebook; errors name the file and what is
 * wrong. The file must be UTF-8 (nbformat requires it, and Jupyter would not
 * open it otherwise): invalid bytes are bad input naming the line, never
 * replaced silently and never left for the kernel to trip over.
 */
export async function readNotebook(file: string): Promise<Notebook> {
  await assertReadableFile(file);
  const { size } = await stat(file);
  if (size > MAX_NOTEBOOK_BYTES) {
    // Read whole, a notebook this size would pass V8's string limit (about 512 Mi characters) or exhaust memory.
    throw new JunoError(
      'E_NOTEBOOK',
      `the notebook is ${size} bytes (${formatBytes(size)}), more than the ${formatBytes(MAX_NOTEBOOK_BYTES)} a notebook is read whole up to (its saved outputs, most likely)`,
      {
        location: { file },
        hint: 'clear its outputs except the error, e.g. `jupyter nbconvert --clear-output --inplace` on a copy and re-run the crashing cell, or import it with `junobench pool import`, which reads notebooks without their outputs',
      },
    );
  }
  const bytes = await readFile(file);
  const bad = locateInvalidUtf8(bytes);
  if (bad) {
    throw new JunoError(
      'E_NOTEBOOK',
      `not valid UTF-8 (first invalid byte 0x${bytes[bad.offset]!.toString(16).padStart(2, '0')} at line ${bad.line}, byte ${bad.offset}); a notebook file is UTF-8 JSON`,
      {
        location: { file, line: bad.line },
        hint: 'it was probably saved in another encoding: convert it, e.g. `iconv -f latin1 -t utf-8 in.ipynb > out.ipynb`, or restore it from its source',
      },
    );
  }
  return parseNotebook(bytes.toString('utf8'), file);
}

/** The largest notebook file read whole (bytes). */
export const MAX_NOTEBOOK_BYTES = 256 * 1024 * 1024;

export interface ParseNotebookOptions {
  /**
   * A notebook of nbformat 4.5 or later whose cells lack their `id` (the schema requires one; some editors leave
   * it out): give each such cell one, as Jupyter does when it opens one (nbformat's normalize), deterministically
   * (`cell-<index>`), instead of refusing the notebook. `repaired` counts them.
   */
  repairIds?: { repaired: number };
}

export function parseNotebook(text: string, file = '<notebook>', options: ParseNotebookOptions = {}): Notebook {
  if (text.trim() === '') {
    throw new JunoError('E_NOTEBOOK', 'the notebook file is empty', { location: { file } });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new JunoError('E_NOTEBOOK', `not a notebook: invalid JSON (${(e as Error).message})`, {
      location: { file },
      hint: 'an .ipynb file is JSON; open it in Jupyter and save it again, or restore it from the source',
      cause: e,
    });
  }
  if (options.repairIds) options.repairIds.repaired = addMissingCellIds(value);
  return validateNotebook(value, file);
}

// Cells of an nbformat ≥ 4.5 notebook without an id get `cell-<index>` (another, if a cell already has that one).
function addMissingCellIds(value: unknown): number {
  const nb = value as { nbformat?: unknown; nbformat_minor?: unknown; cells?: unknown };
  if (!value || typeof value !== 'object' || nb.nbformat !== 4 || typeof nb.nbformat_minor !== 'number') return 0;
  if (nb.nbformat_minor < 5 || !Array.isArray(nb.cells)) return 0;
  const cells = nb.cells.filter((c): c is Record<string, unknown> => !!c && typeof c === 'object' && !Array.isArray(c));
  const taken = new Set(cells.map((c) => c.id).filter((id): id is string => typeof id === 'string'));
  let repaired = 0;
  cells.forEach((c, i) => {
    if (c.id !== undefined) return;
    let id = `cell-${i}`;
    for (let k = 1; taken.has(id); k++) id = `cell-${i}-${k}`;
    taken.add(id);
    c.id = id;
    repaired++;
  });
  return repaired;
}

export function validateNotebook(value: unknown, file = '<notebook>'): Notebook {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new JunoError('E_NOTEBOOK', 'not a notebook: the JSON document is not an object', { location: { file } });
  }
  const deep = findTooDeep(value);
  if (deep) {
    throw new JunoError(
      'E_NOTEBOOK',
      `nested ${deep.depth} levels deep at ${deep.path}, more than the ${MAX_JSON_DEPTH} a notebook may nest`,
      {
        location: { file, field: deep.path },
        hint: "real notebooks nest a few levels; a document this deep would overflow every tool that reads it (Python's json included): remove that field",
      },
    );
  }
  const nb = value as Record<string, unknown>;
  if (nb.nbformat !== 4) {
    const v = nb.nbformat === undefined ? 'no nbformat field' : `nbformat ${String(nb.nbformat)}`;
    throw new JunoError('E_NOTEBOOK', `unsupported notebook format (${v}); only nbformat 4 is supported`, {
      location: { file, field: 'nbformat' },
      hint: 'convert it with `jupyter nbconvert --to notebook --nbformat 4 <file>`',
    });
  }
  const minor = typeof nb.nbformat_minor === 'number' ? nb.nbformat_minor : 0;
  const validate = validatorFor(minor);
  if (!validate(value)) {
    const e = validate.errors?.[0];
    const where = e?.instancePath ?? '';
    throw new JunoError(
      'E_NOTEBOOK',
      `not a valid nbformat 4.${minor} notebook: ${where || '(root)'} ${e?.message ?? ''}`.trim(),
      {
        location: { file, field: where.replace(/^\./, '') || undefined },
        hint: 'the notebook must follow the official nbformat v4 schema (https://nbformat.readthedocs.io)',
      },
    );
  }
  return value as unknown as Notebook;
}
