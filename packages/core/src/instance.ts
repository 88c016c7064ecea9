import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { JunoError } from './errors.js';
import { readJsonFile } from './jsonl.js';
import { compareCodePoints } from './hash.js';
import type { Instance } from './generated/schema-types.js';

export const INSTANCE_FILE = 'instance.json';
export const NOTEBOOK_VERSIONS = ['original', 'reproduced', 'fixed'] as const;
export type NotebookVersion = (typeof NOTEBOOK_VERSIONS)[number];

/**
 * Read raw/instances/<id>/instance.json, validated against the schema. The
 * folder name must equal the id: everything downstream keys on it.
 */
export async function readInstance(instanceDir: string): Promise<Instance> {
  const file = path.join(instanceDir, INSTANCE_FILE);
  const instance = await readJsonFile<Instance>(file, { schema: 'instance' });
  const folder = path.basename(path.resolve(instanceDir));
  if (instance.id !== folder) {
    throw new JunoError('E_INSTANCE', `instance id "${instance.id}" does not match its folder name "${folder}"`, {
      location: { file, field: 'id' },
      hint: `rename the folder to ${instance.id} or set "id": "${folder}"`,
    });
  }
  return instance;
}

/** The instance folders (those holding an instance.json) under instancesDir, sorted by id. */
export async function listInstanceIds(instancesDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(instancesDir);
  } catch (e) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such instances folder', {
      location: { file: instancesDir },
      hint: 'the instances folder holds one sub-folder per instance (--instances <dir> for the commands that take it; raw/instances/ for build)',
      cause: e,
    });
  }
  const ids: string[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    try {
      const st = await stat(path.join(instancesDir, name, INSTANCE_FILE));
      if (st.isFile()) ids.push(name);
    } catch {
      // not an instance folder
    }
  }
  return ids.sort(compareCodePoints);
}
