import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, compareCodePoints, readJsonFile, type Instance } from '@junobench/core';
import type { InstanceRequirement } from './plan-image-recipe.js';

/**
 * The `requires` of every instance under `instancesDir` (each `<id>/instance.json`,
 * validated against schemas/instance.schema.json), sorted by id.
 */
export async function readInstanceRequirements(instancesDir: string): Promise<InstanceRequirement[]> {
  let names: string[];
  try {
    names = await readdir(instancesDir);
  } catch (e) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no instances folder', {
      location: { file: instancesDir },
      hint: 'pass --instances <dir> (a folder of <id>/instance.json), or run from the project root where raw/instances is',
      cause: e,
    });
  }
  const out: InstanceRequirement[] = [];
  for (const name of names.sort(compareCodePoints)) {
    const file = path.join(instancesDir, name, 'instance.json');
    const st = await stat(file).catch(() => undefined);
    if (!st?.isFile()) continue;
    const inst = await readJsonFile<Instance>(file, { schema: 'instance' });
    out.push({ id: inst.id, requires: inst.requires });
  }
  if (out.length === 0) {
    throw new JunoError('E_INPUT_EMPTY', 'no instances (no <id>/instance.json) in the instances folder', {
      location: { file: instancesDir },
      hint: 'an image is built for the instances it must run: add instances, or point --instances at them',
    });
  }
  return out;
}
