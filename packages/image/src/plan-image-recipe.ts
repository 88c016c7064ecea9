import { JunoError, compareCodePoints, type ImageProfile } from '@junobench/core';
import { PYTHON_STDLIB_MODULES } from './python-stdlib.js';

/** What the image needs from one instance: its id and the top-level modules its notebooks import. */
export interface InstanceRequirement {
  id: string;
  requires: readonly string[];
}

/** Everything the Dockerfile is rendered from: one image for all instances, per profile. */
export interface ImageRecipe {
  profile: string;
  base: string;
  installer: 'apt' | 'pip';
  python: string;
  /** Debian packages installed before anything else (shared libraries for wheels). */
  system: string[];
  /** The Jupyter kernel stack the runner needs. */
  kernel: string[];
  /** Packages for the required modules, sorted, without duplicates (kernel and system not repeated). */
  packages: string[];
  /** Each required module the image provides → its packages. */
  modules: Record<string, string[]>;
  /** Required modules the profile knowingly leaves out → why, and which instances need them. */
  unavailable: Record<string, { reason: string; instances: string[] }>;
}

/**
 * The image recipe for these instances under a profile: the union of their
 * `requires`, mapped to the profile's packages. Standard-library modules need
 * nothing. A module the profile neither maps nor lists as unavailable is an
 * error naming the module, the instances that need it and the profile file.
 */
export function planImageRecipe(
  instances: readonly InstanceRequirement[],
  profile: ImageProfile,
  options: { profileFile?: string } = {},
): ImageRecipe {
  const profileFile = options.profileFile ?? `docker/profiles/${profile.name}.json`;
  const needers = new Map<string, string[]>();
  for (const inst of instances) {
    for (const req of inst.requires) {
      const mod = req.split('.')[0]!;
      if (PYTHON_STDLIB_MODULES.has(mod)) continue;
      const list = needers.get(mod) ?? [];
      if (!list.includes(inst.id)) list.push(inst.id);
      needers.set(mod, list);
    }
  }

  const modules: Record<string, string[]> = {};
  const unavailable: ImageRecipe['unavailable'] = {};
  const missing: string[] = [];
  for (const mod of [...needers.keys()].sort(compareCodePoints)) {
    const ids = needers.get(mod)!.sort(compareCodePoints);
    const mapped = profile.modules[mod];
    if (mapped !== undefined) {
      modules[mod] = (Array.isArray(mapped) ? [...mapped] : [mapped as string]).sort(compareCodePoints);
    } else if (profile.unavailable?.[mod] !== undefined) {
      unavailable[mod] = { reason: profile.unavailable[mod]!, instances: ids };
    } else {
      missing.push(`${mod} (needed by ${ids.join(', ')})`);
    }
  }
  if (missing.length > 0) {
    const first = missing[0]!.split(' ')[0]!;
    throw new JunoError(
      'E_PROFILE',
      `profile "${profile.name}" has no package for module${missing.length > 1 ? 's' : ''} ${missing.join('; ')}`,
      {
        location: { file: profileFile, field: 'modules' },
        hint: `add e.g. "${first}": "<${profile.installer === 'apt' ? 'Debian package' : 'pinned requirement'}>" to "modules" in ${profileFile}, or list it under "unavailable" with the reason`,
      },
    );
  }

  const kernel = [...profile.kernel];
  const system = [...(profile.system ?? [])].sort(compareCodePoints);
  const already = new Set([...kernel, ...system]);
  const packages = [...new Set(Object.values(modules).flat())].filter((p) => !already.has(p)).sort(compareCodePoints);
  checkPackages(profile, profileFile, [...kernel, ...packages], system);
  return {
    profile: profile.name,
    base: profile.base,
    installer: profile.installer,
    python: profile.python ?? 'python3',
    system,
    kernel,
    packages,
    modules,
    unavailable,
  };
}

const APT_NAME = /^[a-z0-9][a-z0-9.+-]*$/;
// A pip requirement as the profile may write it: name, optional extras, optional version specifiers.
const PIP_REQUIREMENT =
  /^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9._,-]+\])?((?:\s*(?:==|>=|<=|~=|!=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*,?)*)$/;

/** pip's normalised distribution name (PEP 503). */
export function normalizeDistribution(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The distribution name of a requirement such as `scikit-learn==1.2.2`. */
export function requirementName(requirement: string): string {
  return PIP_REQUIREMENT.exec(requirement.trim())?.[1] ?? requirement.trim();
}

// Packages are written into a shell command line: only plain names and
// specifiers may pass, and pip must not be given two pins of one distribution.
function checkPackages(profile: ImageProfile, file: string, packages: string[], system: string[]): void {
  for (const p of system) {
    if (!APT_NAME.test(p)) throw badPackage(profile, file, 'system', p, 'a Debian package name such as libgl1');
  }
  if (profile.installer === 'apt') {
    for (const p of packages) {
      if (!APT_NAME.test(p))
        throw badPackage(profile, file, 'modules', p, 'a Debian package name such as python3-sklearn');
    }
    return;
  }
  const seen = new Map<string, string>();
  for (const p of packages) {
    if (!PIP_REQUIREMENT.test(p))
      throw badPackage(profile, file, 'modules', p, 'a pip requirement such as scikit-learn==1.2.2');
    const key = normalizeDistribution(requirementName(p));
    const prev = seen.get(key);
    if (prev !== undefined && prev !== p) {
      throw new JunoError(
        'E_PROFILE',
        `profile "${profile.name}" asks pip for ${prev} and ${p}: two different requirements of one distribution`,
        {
          location: { file, field: 'modules' },
          hint: 'give every module of that distribution the same pinned requirement',
        },
      );
    }
    seen.set(key, p);
  }
}

function badPackage(profile: ImageProfile, file: string, field: string, value: string, expected: string): JunoError {
  return new JunoError(
    'E_PROFILE',
    `profile "${profile.name}" names package ${JSON.stringify(value)}; expected ${expected}`,
    {
      location: { file, field },
    },
  );
}
