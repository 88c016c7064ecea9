import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, readJsonFile, type ImageProfile } from '@junobench/core';

export interface LoadedProfile {
  profile: ImageProfile;
  /** The file it was read from. */
  file: string;
}

/**
 * A profile by name (`debian` → `<dockerDir>/profiles/debian.json`) or by
 * path (anything ending in .json), validated against
 * schemas/image-profile.schema.json.
 */
export async function readProfile(nameOrFile: string, options: { dockerDir: string }): Promise<LoadedProfile> {
  const profilesDir = path.join(options.dockerDir, 'profiles');
  const isFile = nameOrFile.endsWith('.json') || nameOrFile.includes('/') || nameOrFile.includes(path.sep);
  if (!isFile && !/^[a-z0-9][a-z0-9-]*$/.test(nameOrFile)) {
    throw new JunoError('E_USAGE', `invalid profile name ${JSON.stringify(nameOrFile)}`, {
      hint: 'use a profile name such as debian or pypi, or a path to a profile .json file',
    });
  }
  const file = isFile ? path.resolve(nameOrFile) : path.join(profilesDir, `${nameOrFile}.json`);
  try {
    const profile = await readJsonFile<ImageProfile>(file, { schema: 'image-profile' });
    return { profile, file };
  } catch (e) {
    if (e instanceof JunoError && e.code === 'E_INPUT_NOT_FOUND' && !isFile) {
      const known = (await readdir(profilesDir).catch(() => [] as string[]))
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -'.json'.length))
        .sort();
      throw new JunoError('E_USAGE', `no image profile named "${nameOrFile}"`, {
        location: { file },
        hint: known.length > 0 ? `known profiles: ${known.join(', ')}` : `profiles live in ${profilesDir}/<name>.json`,
        cause: e,
      });
    }
    throw e;
  }
}
