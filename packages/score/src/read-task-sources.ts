import { access } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  listInstanceIds,
  readInstance,
  readInstanceTree,
  validateInstanceId,
  type Instance,
  type Labels,
} from '@junobench/core';
import { readInstanceChecks, type InstanceChecks } from '@junobench/checks';
import { listCodeCells, readNotebook, type Notebook } from '@junobench/notebook';

/** One instance, read for task export and scoring. */
export interface TaskSource {
  id: string;
  dir: string;
  instance: Instance & { labels: Labels };
  reproduced: Notebook;
  fixed: Notebook;
  /** The notebook as collected, when present: its saved error output is the traceback shown to tools. */
  original?: Notebook;
  /**
   * Files of the instance folder a notebook can read (relative, `/`-separated): everything but the notebooks and
   * instance.json.
   */
  files: string[];
  /** checks.py: what a repair must achieve, run after its last cell (docs/checks.md). */
  checks?: InstanceChecks;
}

export interface SkippedInstance {
  instance: string;
  reason: string;
}

/**
 * Top-level files of an instance folder that a notebook under test must not see (they hold the answers, or the checks
 * a repair is judged by).
 */
export const INSTANCE_ANSWER_FILES: ReadonlySet<string> = new Set([
  'original.ipynb',
  'reproduced.ipynb',
  'fixed.ipynb',
  'instance.json',
  'checks.py',
]);

export const isAnswerFile = (rel: string): boolean => INSTANCE_ANSWER_FILES.has(rel);

/**
 * Read the instances of a folder (all, or `ids`), sorted by id. Drafts (not
 * yet labelled or fixed) are skipped with their reason; anything else that
 * is wrong with an instance is an error naming it.
 */
export async function readTaskSources(
  instancesDir: string,
  ids?: readonly string[],
): Promise<{ sources: TaskSource[]; skipped: SkippedInstance[] }> {
  const available = await listInstanceIds(instancesDir);
  const wanted = ids && ids.length > 0 ? ids.map((id) => validateInstanceId(id)) : available;
  const unknown = wanted.filter((id) => !available.includes(id));
  if (unknown.length > 0) {
    throw new JunoError(
      'E_INPUT_NOT_FOUND',
      `no instance named ${unknown.map((u) => `"${u}"`).join(', ')} in ${instancesDir}`,
      {
        hint:
          available.length > 0
            ? `available: ${available.join(', ')}`
            : 'the folder holds no instance (a sub-folder with instance.json)',
      },
    );
  }
  const sources: TaskSource[] = [];
  const skipped: SkippedInstance[] = [];
  for (const id of [...wanted].sort()) {
    const dir = path.join(instancesDir, id);
    const instance = await readInstance(dir);
    if (instance.status === 'draft' || !instance.labels) {
      skipped.push({ instance: id, reason: 'a draft (not yet labelled and fixed)' });
      continue;
    }
    const reproduced = await readNotebook(path.join(dir, 'reproduced.ipynb'));
    const fixed = await readNotebook(path.join(dir, 'fixed.ipynb'));
    const originalFile = path.join(dir, 'original.ipynb');
    const original = (await exists(originalFile)) ? await readNotebook(originalFile) : undefined;
    const count = listCodeCells(reproduced).length;
    if (instance.crash.cell >= count) {
      throw new JunoError(
        'E_INSTANCE',
        `crash.cell is ${instance.crash.cell} but reproduced.ipynb has ${count} code cells (0–${count - 1})`,
        {
          location: { file: path.join(dir, 'instance.json'), field: 'crash.cell' },
          hint: 'crash.cell counts code cells only, from 0',
        },
      );
    }
    const files = (await readInstanceTree(dir, { ignore: isAnswerFile })).map((f) => f.rel);
    const checks = await readInstanceChecks(dir);
    sources.push({
      id,
      dir,
      instance: instance as Instance & { labels: Labels },
      reproduced,
      fixed,
      ...(original ? { original } : {}),
      files,
      ...(checks ? { checks } : {}),
    });
  }
  return { sources, skipped };
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
