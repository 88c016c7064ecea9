import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeJsonAtomic } from '@junobench/core';

/** What a probe found about one interpreter: its path and version, and each module probed (null: not importable). */
export interface ProbeRecord {
  python: string;
  pythonVersion?: string;
  packages: Record<string, string | null>;
  /** The runner's hash, where the probe ran another copy of it (an image's). */
  runner?: string;
}

/**
 * Probe results kept between commands, one file per interpreter state.
 *
 * Probing imports every module asked about (torch and scikit-learn take 2–3 s
 * on this machine), and every command that runs a notebook asks. The
 * interpreter's fingerprint (its path, version, import path and every
 * installed distribution with its version, read without importing anything:
 * about 0.2 s) names the state a record is true for; installing, removing or
 * upgrading any package, or another PYTHONPATH, gives another fingerprint and
 * so a fresh probe. A record only grows: modules not yet in it are probed and
 * added. A module that did not import is never kept: what it lacked may be
 * outside any distribution (a system library installed with apt), so it is
 * probed again each time, which costs little when there is nothing to import.
 * An unreadable or foreign file counts as absent, and a write that fails is
 * ignored: the cache saves time, it never decides an outcome.
 */
export class ProbeCache {
  constructor(private readonly dir: string) {}

  /** The record for this interpreter state, or undefined. */
  async read(python: string, fingerprint: string): Promise<ProbeRecord | undefined> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.file(python, fingerprint), 'utf8'));
    } catch {
      return undefined;
    }
    return isRecordFor(parsed, python, fingerprint) ? parsed.record : undefined;
  }

  /** Keeps `record`'s importable modules for this interpreter state (replacing what was there). */
  async write(python: string, fingerprint: string, record: ProbeRecord): Promise<void> {
    const packages = Object.fromEntries(Object.entries(record.packages).filter(([, v]) => typeof v === 'string'));
    try {
      await writeJsonAtomic(this.file(python, fingerprint), { python, fingerprint, record: { ...record, packages } });
    } catch {
      // A cache that cannot be written (read-only home, full disk) only costs the next probe.
    }
  }

  private file(python: string, fingerprint: string): string {
    const key = createHash('sha256')
      .update(JSON.stringify([python, fingerprint]))
      .digest('hex');
    return path.join(this.dir, `${key.slice(0, 32)}.json`);
  }
}

function isRecordFor(
  v: unknown,
  python: string,
  fingerprint: string,
): v is { python: string; fingerprint: string; record: ProbeRecord } {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  if (o.python !== python || o.fingerprint !== fingerprint) return false;
  const r = o.record as Record<string, unknown> | null | undefined;
  if (typeof r !== 'object' || r === null || typeof r.python !== 'string') return false;
  if (r.pythonVersion !== undefined && typeof r.pythonVersion !== 'string') return false;
  if (r.runner !== undefined && typeof r.runner !== 'string') return false;
  const p = r.packages;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return false;
  return Object.values(p).every((x) => typeof x === 'string');
}

/** The packages of `modules` from `record`, in the probe's order (sorted), or undefined when one was never probed. */
export function packagesFrom(
  record: ProbeRecord | undefined,
  modules: readonly string[],
): Record<string, string | null> | undefined {
  if (!record) return undefined;
  const out: Record<string, string | null> = {};
  for (const m of [...new Set(modules)].sort()) {
    if (!Object.prototype.hasOwnProperty.call(record.packages, m)) return undefined;
    out[m] = record.packages[m] ?? null;
  }
  return out;
}

/** Those of `modules` that `record` does not answer for: the ones a probe must still ask about. */
export function modulesToProbe(record: ProbeRecord | undefined, modules: readonly string[]): string[] {
  return modules.filter((m) => !record || !Object.prototype.hasOwnProperty.call(record.packages, m));
}
