import path from 'node:path';
import { compareCodePoints } from '@junobench/core';
import { hashBuildPath, readBuildLock } from './read-build-lock.js';

export interface BuildSourcesCheck {
  /** `missing`: never built (or the lock is elsewhere); `invalid`: unreadable; `ok`: read. */
  lock: 'missing' | 'invalid' | 'ok';
  /** Sources that differ from what the build read: a path, and the stages that read it. */
  changed: { path: string; stages: string[] }[];
  /** Stages whose lock entry has no per-path record (written by an older toolchain): nothing to compare. */
  unrecorded: string[];
}

/**
 * Whether the sources a build read (every stage input outside `derivedDir`,
 * the folder the build writes: raw/ files, docker/ profiles) are still what
 * they were when it ran. Inputs inside `derivedDir` are left out: they are
 * the build's own outputs. Code and environment are not compared — a newer
 * toolchain does not make curated/ wrong, an edited label does.
 */
export async function checkBuildSources(options: {
  root: string;
  lockFile: string;
  derivedDir: string;
  /**
   * Sources the caller reads again itself (relative to root), so that a change to them cannot leave it with stale
   * derived files: not compared. `release prepare` reads raw/deprecated.json and raw/release.json afresh.
   */
  readAfresh?: readonly string[];
}): Promise<BuildSourcesCheck> {
  const { lock, problem } = await readBuildLock(path.resolve(options.root, options.lockFile));
  const out: BuildSourcesCheck = { lock: problem ? 'invalid' : 'ok', changed: [], unrecorded: [] };
  if (problem) return out;
  const names = Object.keys(lock.stages).sort(compareCodePoints);
  if (names.length === 0) return { ...out, lock: 'missing' };
  const derived = path.resolve(options.root, options.derivedDir);
  const afresh = new Set((options.readAfresh ?? []).map((p) => path.resolve(options.root, p)));
  const byPath = new Map<string, string[]>();
  const now = new Map<string, Promise<string>>();
  const hashNow = (abs: string) => {
    let h = now.get(abs);
    if (!h) now.set(abs, (h = hashBuildPath(abs).then((x) => x ?? 'missing')));
    return h;
  };
  for (const name of names) {
    const inputs = lock.stages[name]!.inputs;
    if (!inputs) {
      out.unrecorded.push(name);
      continue;
    }
    for (const [rel, recorded] of Object.entries(inputs)) {
      const abs = path.resolve(options.root, rel);
      const inside = path.relative(derived, abs);
      if (inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside))) continue;
      if (afresh.has(abs)) continue;
      if ((await hashNow(abs)) === recorded) continue;
      byPath.set(rel, [...(byPath.get(rel) ?? []), name]);
    }
  }
  out.changed = [...byPath].sort(([a], [b]) => compareCodePoints(a, b)).map(([p, stages]) => ({ path: p, stages }));
  return out;
}
