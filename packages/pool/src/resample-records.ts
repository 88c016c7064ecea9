import { createHash } from 'node:crypto';
import {
  JunoError,
  LIBRARY_NAMES,
  canonicalLibrary,
  compareCodePoints,
  stableStringify,
  suggestClosest,
  type CrashRecord,
  type PoolResampleReport,
  type ResampleLibraryDraw,
  type ResampleShortfall,
} from '@junobench/core';
import { labelledLibrary } from '@junobench/suggest';

export interface ResampleOptions {
  /** At most this many records per library. */
  perLibrary: number;
  /**
   * Only these libraries (names as users write them: `tensorflow`, `scikit-learn`…); default: every library present.
   */
  libraries?: readonly string[];
  seed: string | number;
}

// The report's shape is schemas/pool-resample-report.schema.json (pool resample --report writes it).
export type LibraryDraw = ResampleLibraryDraw;
/** A library with fewer records than requested. */
export type Shortfall = ResampleShortfall;
export type ResampleReport = PoolResampleReport;

/** Library a record is balanced on: its labelled library if any, else the predicted one. */
export function resampleLibrary(record: CrashRecord): string | undefined {
  const labelled = labelledLibrary(record);
  if (labelled !== undefined) return labelled;
  const p = record.predictedLibrary;
  if (p === undefined || p.trim() === '') return undefined;
  return canonicalLibrary(p) ?? p.trim();
}

/** Canonical names for `--libraries`, with a suggestion for a near miss. */
export function parseLibraryList(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    const lib = canonicalLibrary(name);
    if (!lib) {
      const guess = suggestClosest(name, LIBRARY_NAMES);
      throw new JunoError('E_USAGE', `unknown library "${name}"${guess ? ` — did you mean "${guess}"?` : ''}`, {
        location: { field: 'libraries' },
        hint: `libraries are canonical names: ${LIBRARY_NAMES.join(', ')}`,
      });
    }
    if (!out.includes(lib)) out.push(lib);
  }
  return out;
}

interface Candidate {
  key: string;
  record: CrashRecord;
}

function compareCandidates(a: Candidate, b: Candidate): number {
  return compareCodePoints(a.key, b.key) || compareCodePoints(stableStringify(a.record), stableStringify(b.record));
}

/** The k smallest candidates seen so far, as a max-heap: memory is O(k) per library. */
class BoundedHeap {
  private readonly items: Candidate[] = [];
  constructor(private readonly k: number) {}

  push(c: Candidate): void {
    const h = this.items;
    if (h.length < this.k) {
      h.push(c);
      this.up(h.length - 1);
    } else if (compareCandidates(c, h[0]!) < 0) {
      h[0] = c;
      this.down(0);
    }
  }

  sorted(): Candidate[] {
    return [...this.items].sort(compareCandidates);
  }

  private up(i: number): void {
    const h = this.items;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (compareCandidates(h[i]!, h[p]!) <= 0) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && compareCandidates(h[l]!, h[m]!) > 0) m = l;
      if (r < h.length && compareCandidates(h[r]!, h[m]!) > 0) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

/**
 * Seeded, order-independent draw: each record gets the key sha256(seed, id)
 * and every library keeps its `perLibrary` smallest keys. The same records
 * give the same sample whatever order they come in, and one record at a time
 * is enough (the file variant streams).
 */
export class ResampleAccumulator {
  private readonly seed: string;
  private readonly wanted: string[] | undefined;
  private readonly heaps = new Map<string, BoundedHeap>();
  private readonly available = new Map<string, number>();
  private input = 0;
  private unassigned = 0;
  private outside = 0;

  constructor(private readonly options: ResampleOptions) {
    if (!Number.isInteger(options.perLibrary) || options.perLibrary < 1) {
      throw new JunoError(
        'E_USAGE',
        `--per-library must be a positive whole number, got ${String(options.perLibrary)}`,
        {
          location: { field: 'perLibrary' },
          hint: 'e.g. --per-library 15',
        },
      );
    }
    if (options.seed === undefined || String(options.seed) === '') {
      throw new JunoError('E_USAGE', 'a seed is required so that the sample can be drawn again', {
        location: { field: 'seed' },
        hint: 'e.g. --seed 2026',
      });
    }
    this.seed = String(options.seed);
    this.wanted = options.libraries && options.libraries.length > 0 ? parseLibraryList(options.libraries) : undefined;
  }

  add(record: CrashRecord): void {
    this.input++;
    const lib = resampleLibrary(record);
    if (lib === undefined) {
      this.unassigned++;
      return;
    }
    if (this.wanted && !this.wanted.includes(lib)) {
      this.outside++;
      return;
    }
    this.available.set(lib, (this.available.get(lib) ?? 0) + 1);
    let heap = this.heaps.get(lib);
    if (!heap) this.heaps.set(lib, (heap = new BoundedHeap(this.options.perLibrary)));
    const key = createHash('sha256').update(this.seed).update('\u0000').update(record.id).digest('hex');
    heap.push({ key, record });
  }

  /** The sample (grouped by library in code-point order, each in draw order) and the report. */
  result(): { selected: CrashRecord[]; report: ResampleReport } {
    const libs = [...new Set([...(this.wanted ?? []), ...this.heaps.keys()])].sort(compareCodePoints);
    const selected: CrashRecord[] = [];
    const draws: LibraryDraw[] = [];
    const shortfalls: Shortfall[] = [];
    for (const lib of libs) {
      const picked = this.heaps.get(lib)?.sorted() ?? [];
      for (const c of picked) selected.push(c.record);
      const available = this.available.get(lib) ?? 0;
      draws.push({ library: lib, available, selected: picked.length });
      if (available < this.options.perLibrary)
        shortfalls.push({ library: lib, requested: this.options.perLibrary, available });
    }
    return {
      selected,
      report: {
        seed: this.seed,
        perLibrary: this.options.perLibrary,
        input: this.input,
        selected: selected.length,
        unassigned: this.unassigned,
        outside: this.outside,
        libraries: draws,
        shortfalls,
      },
    };
  }
}

/** Balanced, seeded selection of up to N records per library; deterministic regardless of input order. Pure. */
export function resampleRecords(
  records: Iterable<CrashRecord>,
  options: ResampleOptions,
): { selected: CrashRecord[]; report: ResampleReport } {
  const acc = new ResampleAccumulator(options);
  for (const r of records) acc.add(r);
  return acc.result();
}
