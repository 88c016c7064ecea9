import { readFile } from 'node:fs/promises';
import semver from 'semver';
import {
  JunoError,
  compareCodePoints,
  validateInstanceId,
  validateOrThrow,
  writeJsonAtomic,
  type DeprecatedInstances,
} from '@junobench/core';

/** raw/deprecated.json; a missing file is an empty list. */
export async function readDeprecated(file: string): Promise<DeprecatedInstances> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { instances: [] };
    throw e;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new JunoError('E_INPUT_FORMAT', `not valid JSON: ${(e as Error).message}`, { location: { file }, cause: e });
  }
  const list = validateOrThrow<DeprecatedInstances>('deprecated', value, { file });
  const seen = new Set<string>();
  for (const d of list.instances) {
    if (seen.has(d.id))
      throw new JunoError('E_INPUT_FORMAT', `instance ${d.id} is listed twice`, {
        location: { file, field: 'instances' },
        hint: 'keep one entry per id',
      });
    seen.add(d.id);
  }
  return list;
}

export interface DeprecationRequest {
  id: string;
  reason: string;
  /** The first release that leaves it out. */
  version: string;
  /** Ids that exist (raw/instances, or any release): deprecating anything else is a typo. */
  known: ReadonlySet<string>;
  /** Releases made so far and their instances: the version that leaves it out must come after those that hold it. */
  released?: readonly { version: string; ids: ReadonlySet<string> }[];
}

/**
 * The deprecation list with one more instance, sorted by id. Refuses an
 * unknown id, an id already deprecated and a version that is not semver:
 * an id, once deprecated, stays deprecated and is never reused.
 */
export function planDeprecation(current: DeprecatedInstances, req: DeprecationRequest): DeprecatedInstances {
  validateInstanceId(req.id);
  if (!semver.valid(req.version) || req.version.startsWith('v')) {
    throw new JunoError('E_USAGE', `"${req.version}" is not a semantic version`, {
      hint: 'give it as MAJOR.MINOR.PATCH, e.g. --in 0.2.0',
    });
  }
  const reason = req.reason.trim();
  if (!reason)
    throw new JunoError('E_USAGE', 'the reason is empty', {
      hint: 'say why, e.g. --reason "the dataset was withdrawn by its author"',
    });
  const existing = current.instances.find((d) => d.id === req.id);
  if (existing) {
    throw new JunoError(
      'E_USAGE',
      `${req.id} is already deprecated (in ${existing.deprecatedIn}: ${existing.reason})`,
      {
        hint: 'a deprecation is permanent; edit raw/deprecated.json by hand only to correct its reason',
      },
    );
  }
  if (!req.known.has(req.id)) {
    throw new JunoError('E_INPUT_NOT_FOUND', `no instance named ${req.id}`, {
      hint: 'deprecate an instance of raw/instances (or of a past release) by its id',
    });
  }
  const holding = (req.released ?? [])
    .filter((r) => r.ids.has(req.id) && semver.valid(r.version) && semver.gte(r.version, req.version))
    .map((r) => r.version);
  if (holding.length > 0) {
    const latest = holding.sort(semver.rcompare)[0]!;
    throw new JunoError(
      'E_USAGE',
      `${req.id} is in release ${latest}, so it cannot be deprecated in ${req.version}: --in names the first release that leaves it out`,
      {
        hint: `give a later version, e.g. --in ${semver.inc(latest, 'minor')} (or leave out --in)`,
      },
    );
  }
  return {
    instances: [...current.instances, { id: req.id, deprecatedIn: req.version, reason }].sort((a, b) =>
      compareCodePoints(a.id, b.id),
    ),
  };
}

/**
 * The default first release to leave a deprecated instance out: the next minor version after the latest release, else
 * 0.1.0.
 */
export function nextDeprecationVersion(released: readonly string[]): string {
  const latest = released.filter((v) => semver.valid(v)).sort(semver.rcompare)[0];
  return latest ? semver.inc(latest, 'minor')! : '0.1.0';
}

export async function writeDeprecated(file: string, list: DeprecatedInstances): Promise<void> {
  validateOrThrow('deprecated', list, { file });
  await writeJsonAtomic(file, list);
}
