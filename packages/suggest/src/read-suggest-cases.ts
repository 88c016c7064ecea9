import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  INSTANCE_FILE,
  JunoError,
  readInstance,
  readJsonl,
  validateInstanceId,
  type CrashRecord,
  type Instance,
} from '@junobench/core';
import { listCodeCells, mineImports, mineNotebookCrashes, readNotebook, type Notebook } from '@junobench/notebook';
import type { SuggestInput } from './crash-facts.js';
import { normalizeLabels, type NormalizedLabels } from './normalize-labels.js';

/** One crash to suggest labels for, with the labels it already has (to measure against). */
export interface SuggestCase {
  /** The record's id, the instance id, or `<notebook>#cell<n>`. */
  id: string;
  kind: 'notebook' | 'instance' | 'pool';
  /** Where it was read: a file, with the code cell or the line. */
  location: string;
  input: SuggestInput;
  /** Labels in JunoBench's vocabularies; empty when the crash is unlabelled. */
  labels: NormalizedLabels;
}

export interface ReadSuggestOptions {
  /** Where instance ids are looked up (default raw/instances, from the working directory). */
  instancesDir: string;
}

/**
 * The crashes a `labels suggest` target names: a notebook (each saved error
 * output), an instance id (its collected notebook's crash, labels from
 * instance.json), or a pool of CrashRecords (.jsonl).
 */
export async function readSuggestCases(target: string, options: ReadSuggestOptions): Promise<SuggestCase[]> {
  if (target.endsWith('.ipynb')) return readNotebookCases(target);
  if (target.endsWith('.jsonl')) return readPoolCases(target);
  if (await isFile(target)) {
    throw new JunoError(
      'E_USAGE',
      `cannot suggest labels for ${target}: give a notebook (.ipynb), a pool of crash records (.jsonl) or an instance id`,
      {
        location: { file: target },
        hint: 'e.g. junobench labels suggest raw/instances/pandas_1/original.ipynb, or import a sheet first: junobench pool import sheet.xlsx -o pool.jsonl',
      },
    );
  }
  return [await readInstanceCase(target, options.instancesDir)];
}

async function readPoolCases(file: string): Promise<SuggestCase[]> {
  const out: SuggestCase[] = [];
  for await (const { value, line } of readJsonl<CrashRecord>(file, { schema: 'crash-record' })) {
    out.push({
      id: value.id,
      kind: 'pool',
      location: `${file}:${line}`,
      input: recordInput(value),
      labels: normalizeLabels(value.labels),
    });
  }
  return out;
}

function recordInput(r: CrashRecord): SuggestInput {
  return { ename: r.ename, evalue: r.evalue, traceback: r.traceback, ...(r.imports ? { imports: r.imports } : {}) };
}

async function readNotebookCases(file: string): Promise<SuggestCase[]> {
  const nb = await readNotebook(file);
  const crashes = mineNotebookCrashes(nb);
  if (crashes.length === 0) {
    throw new JunoError('E_INPUT_EMPTY', `${file} has no saved error output to suggest labels for`, {
      location: { file },
      hint: 'suggestions read the crash a notebook saved; give the notebook as collected (with its outputs), or an instance id',
    });
  }
  const name = path.basename(file);
  return crashes.map((c) => ({
    id: `${name}#cell${c.codeCell}`,
    kind: 'notebook' as const,
    location: `${file}, code cell ${c.codeCell}`,
    input: notebookCrashInput(nb, c),
    labels: {},
  }));
}

/**
 * What a notebook's saved crash gives the suggestions: the exception, its
 * traceback, the crashing cell, the cells around it with their execution
 * counts, and the notebook's imports. One builder for `labels suggest` and
 * `add`, so that both suggest the same labels for the same crash.
 */
export function notebookCrashInput(
  nb: Notebook,
  crash: { ename: string; evalue: string; traceback: readonly string[]; codeCell: number },
): SuggestInput {
  return {
    ename: crash.ename,
    evalue: crash.evalue,
    traceback: [...crash.traceback],
    ...notebookContext(nb, crash.codeCell),
  };
}

/** The crashing cell, the cells around it and their execution counts, and the notebook's imports. */
function notebookContext(nb: Notebook, codeCell: number): Partial<SuggestInput> {
  const cells = listCodeCells(nb);
  const before = cells.slice(0, codeCell);
  const after = cells.slice(codeCell + 1);
  const crashing = cells[codeCell];
  return {
    imports: mineImports(nb),
    ...(crashing ? { cell: crashing.source, executionCount: crashing.executionCount } : {}),
    cellsBefore: before.map((c) => c.source),
    cellsAfter: after.map((c) => c.source),
    executionCountsBefore: before.map((c) => c.executionCount),
    executionCountsAfter: after.map((c) => c.executionCount),
  };
}

async function readInstanceCase(id: string, instancesDir: string): Promise<SuggestCase> {
  validateInstanceId(id);
  const dir = path.join(instancesDir, id);
  if (!(await isFile(path.join(dir, INSTANCE_FILE)))) {
    throw new JunoError(
      'E_INPUT_NOT_FOUND',
      `no instance "${id}" in ${instancesDir} (and it is not a .ipynb or .jsonl file)`,
      {
        location: { file: path.join(dir, INSTANCE_FILE) },
        hint: 'give an instance id from the instances folder (--instances <dir>), a notebook (.ipynb) or a pool (.jsonl)',
      },
    );
  }
  const instance = await readInstance(dir);
  // The notebook as collected keeps the crash's saved output; the reproduced one names the cell.
  for (const version of ['original', 'reproduced'] as const) {
    const file = path.join(dir, `${version}.ipynb`);
    if (!(await isFile(file))) continue;
    const nb = await readNotebook(file);
    const crash = pickCrash(mineNotebookCrashes(nb), instance);
    if (crash) {
      return {
        id,
        kind: 'instance',
        location: `${file}, code cell ${crash.codeCell}`,
        input: {
          ename: crash.ename,
          evalue: crash.evalue,
          traceback: crash.traceback,
          ...notebookContext(nb, crash.codeCell),
        },
        labels: normalizeLabels(instance.labels),
      };
    }
  }
  // No saved output: what instance.json says of the crash, in the reproduced notebook's cell.
  const file = path.join(dir, 'reproduced.ipynb');
  const nb = await readNotebook(file);
  return {
    id,
    kind: 'instance',
    location: `${file}, code cell ${instance.crash.cell}`,
    input: {
      ename: instance.crash.ename,
      evalue: instance.crash.evalue,
      traceback: [],
      ...notebookContext(nb, instance.crash.cell),
    },
    labels: normalizeLabels(instance.labels),
  };
}

function pickCrash<T extends { ename: string }>(crashes: T[], instance: Instance): T | undefined {
  const bare = (n: string) => n.split('.').pop()!.toLowerCase();
  return crashes.find((c) => bare(c.ename) === bare(instance.crash.ename)) ?? undefined;
}

function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}
