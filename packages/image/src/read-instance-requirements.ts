import path from 'node:path';
import { JunoError, listInstanceIds, readInstance } from '@junobench/core';
import type { InstanceRequirement } from './plan-image-recipe.js';

/**
 * The `requires` of every instance under `instancesDir` (each `<id>/instance.json`,
 * validated against schemas/instance.schema.json), sorted by id.
 */
export async function readInstanceRequirements(instancesDir: string): Promise<InstanceRequirement[]> {
  const out: InstanceRequirement[] = [];
  for (const id of await listInstanceIds(instancesDir)) {
    const inst = await readInstance(path.join(instancesDir, id));
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
