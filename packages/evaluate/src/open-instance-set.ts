import path from 'node:path';
import {
  JunoError,
  compareCodePoints,
  hashFile,
  hashInstanceTree,
  listInstanceIds,
  readInstance,
  sha256,
  validateInstanceId,
  type BenchmarkIdentity,
} from '@junobench/core';

export interface OpenInstanceSetOptions {
  /** A release: its folder (the archive with SHA256SUMS beside it), its .tar.gz, or an extracted release. */
  release?: string;
  /** The raw tree's instances folder (used without `release`). */
  instancesDir: string;
  /** raw/deprecated.json (default: beside the instances folder). */
  deprecatedFile?: string;
  /** Take the raw tree's drafts too (`--include-drafts`). */
  includeDrafts?: boolean;
  /** Instances named on the command line: each must be in the set. */
  ids?: readonly string[];
  /** Where a release archive is extracted (default the system's temporary folder). */
  tmpDir?: string;
}

export interface LeftOutInstance {
  id: string;
  why: 'draft' | 'deprecated';
  /** For a deprecated instance: the release that withdrew it and why. */
  detail?: string;
}

/** The instances a command uses, and which benchmark that is. */
export interface InstanceSet {
  /** The folder the instances are read from (a release's extracted instances/, or the raw tree's). */
  instancesDir: string;
  /** Exactly the instances to use, sorted. */
  ids: string[];
  identity: BenchmarkIdentity;
  /** Raw tree: instances of the folder that are not in the set, and why. */
  leftOut: LeftOutInstance[];
  /** Removes an extracted release (a no-op for the raw tree). */
  close(): Promise<void>;
}

/** How many release problems an error lists before "… and N more". */
const PROBLEMS_SHOWN = 5;

/**
 * The one rule for which instances the benchmark is (README, "Score your tool"; docs/scoring.md, "Which instances"):
 * with a release, its sums and manifest are checked first (nothing runs), then exactly the instances its manifest
 * lists are used, read from the extracted archive; without one, the raw tree's instances minus deprecated ones
 * (raw/deprecated.json) and minus drafts unless `includeDrafts`. `tasks export`, `verify`, `baseline` and `score`
 * all call this, so they agree on the set and on its identity.
 */
export async function openInstanceSet(options: OpenInstanceSetOptions): Promise<InstanceSet> {
  if (options.release !== undefined) {
    if (options.includeDrafts) {
      throw new JunoError('E_USAGE', '--include-drafts does not apply to a release: a release holds no draft', {
        hint: 'drop --include-drafts, or drop --release to use the raw tree with its drafts',
      });
    }
    return openReleaseSet(options.release, options);
  }
  return openRawSet(options);
}

async function openReleaseSet(release: string, options: OpenInstanceSetOptions): Promise<InstanceSet> {
  const { openRelease, checkRelease } = await import('@junobench/release');
  const opened = await openRelease(release, options.tmpDir ? { tmpDir: options.tmpDir } : {});
  try {
    const check = await checkRelease(opened);
    if (check.problems.length > 0 || !check.manifest) {
      const shown = check.problems.slice(0, PROBLEMS_SHOWN).map((p) => `${p.path}: ${p.message}`);
      const more =
        check.problems.length > PROBLEMS_SHOWN ? [`… and ${check.problems.length - PROBLEMS_SHOWN} more`] : [];
      throw new JunoError(
        'E_INPUT_FORMAT',
        `the release does not check out (its sums or manifest), so its instances are not used:\n  ${[...shown, ...more].join('\n  ') || 'no manifest.json'}`,
        {
          location: { file: release },
          hint: `junobench release verify ${release} --no-run lists every problem; download the release again`,
        },
      );
    }
    const manifest = check.manifest;
    const ids = manifest.instances.map((i) => i.id).sort(compareCodePoints);
    const manifestSha256 = await hashFile(path.join(opened.top, 'manifest.json'));
    const identity: BenchmarkIdentity = {
      source: 'release',
      version: manifest.version,
      ...(opened.archive ? { archiveSha256: opened.archive.sha256 } : {}),
      manifestSha256,
      instances: ids.length,
      ids,
    };
    const instancesDir = path.join(opened.top, 'instances');
    return {
      instancesDir,
      ids: pickNamed(ids, options.ids, `release ${manifest.version}`, []),
      identity,
      leftOut: [],
      close: () => opened.close(),
    };
  } catch (e) {
    await opened.close();
    throw e;
  }
}

async function openRawSet(options: OpenInstanceSetOptions): Promise<InstanceSet> {
  const dir = path.resolve(options.instancesDir);
  const deprecatedFile = options.deprecatedFile ?? path.join(path.dirname(dir), 'deprecated.json');
  const { readDeprecated } = await import('@junobench/release');
  const deprecated = new Map((await readDeprecated(deprecatedFile)).instances.map((d) => [d.id, d]));
  const leftOut: LeftOutInstance[] = [];
  const ids: string[] = [];
  for (const id of await listInstanceIds(dir)) {
    const d = deprecated.get(id);
    if (d) {
      leftOut.push({ id, why: 'deprecated', detail: `deprecated in ${d.deprecatedIn}: ${d.reason}` });
      continue;
    }
    if (!options.includeDrafts && (await readInstance(path.join(dir, id))).status === 'draft') {
      leftOut.push({ id, why: 'draft' });
      continue;
    }
    ids.push(id);
  }
  if (ids.length === 0) {
    // An empty set would read as "everything" to a stage given no ids, and "0/0 verified" as success.
    const drafts = leftOut.filter((l) => l.why === 'draft').length;
    throw new JunoError('E_INPUT_EMPTY', `no instance of ${dir} is in the benchmark`, {
      location: { file: dir },
      hint:
        leftOut.length === 0
          ? 'pass the folder that holds one sub-folder per instance (--instances <dir>), or a release (--release <dir|tarball>)'
          : `${leftOut.length} left out (${drafts} draft${drafts === 1 ? '' : 's'}, ${leftOut.length - drafts} deprecated)${drafts > 0 ? '; add --include-drafts to use the drafts' : ''}`,
    });
  }
  const hashes: string[] = [];
  for (const id of ids) hashes.push(`${id}\u0000${await hashInstanceTree(path.join(dir, id))}\n`);
  const identity: BenchmarkIdentity = {
    source: 'raw',
    treeSha256: sha256(hashes.join('')),
    drafts: options.includeDrafts === true,
    instances: ids.length,
    ids,
  };
  return {
    instancesDir: dir,
    ids: pickNamed(ids, options.ids, dir, leftOut),
    identity,
    leftOut,
    close: async () => undefined,
  };
}

/** The named instances (all of the set when none is named), each checked to be in it. */
function pickNamed(
  ids: readonly string[],
  named: readonly string[] | undefined,
  where: string,
  leftOut: readonly LeftOutInstance[],
): string[] {
  if (!named || named.length === 0) return [...ids];
  const wanted = named.map((id) => validateInstanceId(id));
  for (const id of wanted) {
    if (ids.includes(id)) continue;
    const out = leftOut.find((l) => l.id === id);
    if (out?.why === 'draft')
      throw new JunoError('E_USAGE', `${id} is a draft: drafts are not part of the benchmark`, {
        hint: 'add --include-drafts to use the raw tree with its drafts',
      });
    if (out?.why === 'deprecated')
      throw new JunoError('E_USAGE', `${id} is ${out.detail}`, {
        hint: 'a deprecated instance is withdrawn from the benchmark; remove its entry from raw/deprecated.json to use it again',
      });
    throw new JunoError('E_INPUT_NOT_FOUND', `no instance named "${id}" in ${where}`, {
      hint:
        ids.length > 0
          ? `available: ${ids.join(', ')}`
          : 'the folder holds no instance (a sub-folder with instance.json)',
    });
  }
  return [...new Set(wanted)].sort(compareCodePoints);
}

/**
 * One line that says which set a command used and its identity, e.g. `benchmark: release 0.2.0 (archive sha256
 * 3f2a…, 15 instances)` or `benchmark: raw tree raw/instances (tree sha256 9c1e…, 15 instances; left out: 1
 * deprecated, 2 drafts)`.
 */
export function describeInstanceSet(set: Pick<InstanceSet, 'identity' | 'leftOut'>, shownDir?: string): string {
  const id = set.identity;
  const n = `${id.instances} instance${id.instances === 1 ? '' : 's'}`;
  if (id.source === 'release') {
    const sum = id.archiveSha256 ? `archive sha256 ${id.archiveSha256}` : `manifest sha256 ${id.manifestSha256}`;
    return `benchmark: release ${id.version} (${sum}, ${n})`;
  }
  const count = (why: LeftOutInstance['why']) => set.leftOut.filter((l) => l.why === why).length;
  const parts = [
    count('deprecated') > 0 ? `${count('deprecated')} deprecated` : '',
    count('draft') > 0 ? `${count('draft')} draft${count('draft') === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  const left = parts.length > 0 ? `; left out: ${parts.join(', ')}` : '';
  const drafts = id.drafts ? '; drafts included' : '';
  return `benchmark: raw tree${shownDir ? ` ${shownDir}` : ''} (tree sha256 ${id.treeSha256}, ${n}${drafts}${left})`;
}
