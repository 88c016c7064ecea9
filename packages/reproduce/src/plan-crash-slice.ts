import type { CellFacts } from './analyze-cells.js';

/**
 * Pure: the cells up to the crash that the crashing cell depends on, by name
 * analysis (a backward slice): the crashing cell, and every earlier cell that
 * binds or may change (`mutates`) a name a cell of the slice uses unbound.
 * Conservative: a name stays needed once needed, and a cell the analyser could
 * not parse, or one with a star import, is in the slice.
 */
export function crashSlice(facts: readonly CellFacts[], crashCell: number, runOrder?: readonly number[]): Set<number> {
  const upTo = upToCrash(facts, crashCell, runOrder).reverse();
  const slice = new Set<number>([crashCell]);
  const crash = upTo.find((f) => f.index === crashCell);
  const needed = new Set<string>(crash?.undefined ?? []);
  for (const f of upTo) {
    if (f.index === crashCell) continue;
    const changes = f.mutates ?? [...f.loads, ...f.undefined];
    const binds = [...f.defines, ...changes].some((n) => needed.has(n));
    if (binds || !f.parsed || f.star) {
      slice.add(f.index);
      for (const n of f.undefined) needed.add(n);
    }
  }
  return slice;
}

/**
 * Pure: the cells to leave out of the replay so that it needs none of the
 * `users` (cells that use a module the runtime lacks): those cells, and the
 * cells that use a name only they bind, in turn. Undefined when the crash's
 * slice holds one of them (the crash needs what it computes).
 */
export function cellsOutsideSlice(
  facts: readonly CellFacts[],
  crashCell: number,
  users: readonly number[],
  slice: ReadonlySet<number> = crashSlice(facts, crashCell),
  runOrder?: readonly number[],
): Map<number, string> | undefined {
  const upTo = upToCrash(facts, crashCell, runOrder);
  const out = new Map<number, string>();
  for (const u of users) {
    if (slice.has(u)) return undefined;
    out.set(u, '');
  }
  for (;;) {
    const kept = upTo.filter((f) => !out.has(f.index));
    const boundByKept = new Set(kept.flatMap((f) => f.defines));
    const lost = new Map<string, number>();
    for (const f of upTo)
      if (out.has(f.index)) for (const n of f.defines) if (!boundByKept.has(n)) lost.set(n, f.index);
    const next = kept.find((f) => f.undefined.some((n) => lost.has(n)));
    if (!next) return out;
    if (slice.has(next.index)) return undefined;
    const name = next.undefined.find((n) => lost.has(n))!;
    out.set(next.index, `it uses ${name}, which code cell ${lost.get(name)} (left out) binds`);
  }
}

/**
 * Pure: the cells that run up to the crash (itself included), in the order they run: `runOrder` (code-cell indices
 * as the replay runs them, e.g. by saved execution counts, where a cell below the crash may run before it) up to the
 * crash, or file order when none is given.
 */
export function upToCrash(facts: readonly CellFacts[], crashCell: number, runOrder?: readonly number[]): CellFacts[] {
  if (!runOrder || !runOrder.includes(crashCell))
    return facts.filter((f) => f.index <= crashCell).sort((a, b) => a.index - b.index);
  const byIndex = new Map(facts.map((f) => [f.index, f]));
  return runOrder
    .slice(0, runOrder.indexOf(crashCell) + 1)
    .map((i) => byIndex.get(i))
    .filter((f): f is CellFacts => f !== undefined);
}
