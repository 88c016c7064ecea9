import type { CellFacts } from './analyze-cells.js';

/** A name the crash cell uses whose every defining cell ran only after the crash (or never). */
export interface DefinedAfterCrash {
  name: string;
  /** The defining cells (original code-cell indices) with their saved execution counts. */
  definers: { cell: number; count: number | null }[];
}

/**
 * Pure: the names the crashing cell uses (and does not bind itself) that no cell defined before the crash in the saved
 * session: every cell that defines one ran after it (a higher execution count) or never. The value the crash met then
 * came from a run the notebook no longer holds — that cell's earlier run, or a cell since deleted — and a replay's
 * value may differ. Names an import binds are left aside: running an import again gives the same module.
 */
export function findDefinedAfterCrash(
  facts: ReadonlyMap<number, CellFacts>,
  counts: ReadonlyMap<number, number | null>,
  crash: { cell: number; count: number | null },
): DefinedAfterCrash[] {
  const crashCount = crash.count;
  const f = facts.get(crash.cell);
  if (crashCount === null || !f || !f.parsed || f.star) return [];
  const imported = new Set([...facts.values()].flatMap((x) => x.imports.map((i) => i.alias)));
  const out: DefinedAfterCrash[] = [];
  for (const name of f.undefinedNow ?? f.undefined) {
    if (imported.has(name)) continue;
    const definers = [...facts.values()]
      .filter((x) => x.index !== crash.cell && x.defines.includes(name))
      .map((x) => ({ cell: x.index, count: counts.get(x.index) ?? null }));
    if (definers.length === 0) continue;
    if (definers.every((d) => d.count === null || d.count > crashCount)) out.push({ name, definers });
  }
  return out;
}

/**
 * Pure: the code cells (indices in the order given) that ran without error in the saved session: an execution count,
 * and no error among their saved outputs.
 */
export function findCellsThatRan(cells: readonly { executionCount: number | null; hasError: boolean }[]): number[] {
  return cells.flatMap((c, i) => (c.executionCount !== null && !c.hasError ? [i] : []));
}
