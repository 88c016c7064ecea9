import { compareCodePoints } from '@junobench/core';
import type { CellFacts } from './analyze-cells.js';

export interface UnboundUse {
  name: string;
  /** Code cell (original index) that uses it before any replayed cell defines it. */
  usedIn: number;
  /** Code cells (original index) that define it. */
  definedIn: number[];
}

/**
 * Pure: the names a replay uses before it defines them — names some cell of
 * the notebook defines, used at once (not inside a function body) by a
 * replayed cell that no earlier replayed cell defines. A name no cell defines
 * is not an order problem (a NameError crash is exactly that), and neither
 * is the name the crash itself reports missing in the crashing cell.
 */
export function findUnboundUses(
  sequence: readonly number[],
  facts: ReadonlyMap<number, CellFacts>,
  crash: { cell: number; ename: string; evalue: string },
): UnboundUse[] {
  const definers = new Map<string, number[]>();
  for (const [i, f] of facts) for (const n of f.defines) definers.set(n, [...(definers.get(n) ?? []), i]);
  const crashName =
    /name '([^']+)' is not defined|local variable '([^']+)'|cannot access local variable '([^']+)'/.exec(crash.evalue);
  const missingName = crashName ? (crashName[1] ?? crashName[2] ?? crashName[3]) : undefined;
  const defined = new Set<string>();
  let star = false;
  const out: UnboundUse[] = [];
  for (const ci of sequence) {
    const f = facts.get(ci);
    if (!f) continue;
    if (f.parsed) {
      for (const n of f.undefinedNow ?? f.undefined) {
        if (defined.has(n) || star) continue;
        if (ci === crash.cell && n === missingName) continue;
        const d = definers.get(n);
        if (!d || d.length === 0) continue;
        if (!out.some((u) => u.name === n)) out.push({ name: n, usedIn: ci, definedIn: d });
      }
    }
    for (const n of f.defines) defined.add(n);
    if (f.star) star = true;
  }
  return out;
}

export interface LeftOutCell {
  cell: number;
  names: string[];
  /**
   * `unbound`: used before the saved counts define them; `undefined`: no cell of the notebook defines them;
   * `never-ran`: the cell does not parse and has no execution count (`names` then holds the syntax error).
   */
  reason: 'unbound' | 'undefined' | 'never-ran';
}

export interface ReplayOrderChoice {
  chosen: 'execution-count' | 'file' | 'needed';
  /** Original code-cell indices in replay order. */
  sequence: number[];
  /** Names still used before they are defined in the chosen order. */
  unbound: UnboundUse[];
  /**
   * Cells of the planned order left out of the replay (original indices): each uses a name before the saved counts
   * define it, and nothing the crash depends on comes from it. Absent when none is.
   */
  leftOut?: LeftOutCell[];
  why: string;
}

/**
 * Pure: check the planned replay order by name analysis and fall back when
 * the saved counts cannot have produced the crash. The planned order is
 * kept when it binds every name before use. Otherwise file order (every cell
 * up to the crash, top to bottom) is taken when it does; otherwise the order
 * the crash needs: file order with each defining cell moved just before the
 * first cell that uses its name, when that leaves nothing unbound.
 */
export function chooseReplayOrder(
  planned: { order: 'execution-count' | 'file'; sequence: readonly number[] },
  fileSequence: readonly number[],
  facts: ReadonlyMap<number, CellFacts>,
  crash: { cell: number; ename: string; evalue: string },
  counts?: ReadonlyMap<number, number | null>,
): ReplayOrderChoice {
  const choice = leaveOutNeverRan(chooseOrder(planned, fileSequence, facts, crash), facts, crash, counts);
  // A name no cell defines stops the replay before the crash: when nothing the crash depends on comes from the cell
  // that uses it (a stray expression left from a deleted cell), that cell goes, not the crash.
  const orphans = leaveOutOrphanUses(choice.sequence, facts, crash);
  if (!orphans) return choice;
  const where = orphans.leftOut.map((l) => `code cell ${l.cell} (${l.names.join(', ')})`).join(', ');
  return {
    ...choice,
    sequence: orphans.sequence,
    leftOut: [...(choice.leftOut ?? []), ...orphans.leftOut],
    why: `${choice.why}; ${where} ${orphans.leftOut.length === 1 ? 'uses a name' : 'use names'} no cell of the notebook defines, and nothing up to the crash depends on ${orphans.leftOut.length === 1 ? 'it' : 'them'}: left out of the replay`,
  };
}

/**
 * Pure: the choice without the cells before the crash that do not parse and carry no execution count (prose kept
 * in a code cell, an unfinished exercise): such a cell never ran in the saved session in this form, so its syntax
 * error is no part of the crash, and replaying it would stop the run there.
 */
function leaveOutNeverRan(
  choice: ReplayOrderChoice,
  facts: ReadonlyMap<number, CellFacts>,
  crash: { cell: number },
  counts: ReadonlyMap<number, number | null> | undefined,
): ReplayOrderChoice {
  if (!counts) return choice;
  const crashAt = choice.sequence.indexOf(crash.cell);
  const never = choice.sequence
    .slice(0, crashAt < 0 ? undefined : crashAt)
    .filter((c) => c !== crash.cell && facts.get(c)?.parsed === false && counts.get(c) === null);
  if (never.length === 0) return choice;
  const leftOut: LeftOutCell[] = never.map((cell) => ({
    cell,
    names: [facts.get(cell)?.syntaxError ?? 'a syntax error'],
    reason: 'never-ran',
  }));
  return {
    ...choice,
    sequence: choice.sequence.filter((c) => !never.includes(c)),
    leftOut: [...(choice.leftOut ?? []), ...leftOut],
    why: `${choice.why}; ${never.map((c) => `code cell ${c}`).join(', ')} ${never.length === 1 ? 'does' : 'do'} not parse and ${never.length === 1 ? 'has' : 'have'} no execution count (never ran in this form): left out of the replay`,
  };
}

function chooseOrder(
  planned: { order: 'execution-count' | 'file'; sequence: readonly number[] },
  fileSequence: readonly number[],
  facts: ReadonlyMap<number, CellFacts>,
  crash: { cell: number; ename: string; evalue: string },
): ReplayOrderChoice {
  const first = findUnboundUses(planned.sequence, facts, crash);
  if (first.length === 0) {
    return {
      chosen: planned.order,
      sequence: [...planned.sequence],
      unbound: [],
      why: `${planned.order === 'file' ? 'file order defines' : 'the saved execution counts define'} every name before its use`,
    };
  }
  const names = first.map((u) => u.name).sort(compareCodePoints);
  const said = `${planned.order === 'file' ? 'file order' : 'the saved execution counts'} use ${names.join(', ')} before any replayed cell defines ${names.length === 1 ? 'it' : 'them'}`;
  // The saved counts are the session's own order (a cell below the crash that ran before it, say, dropped a column):
  // when only cells the crash cannot depend on break them, those cells go, not the order.
  const pruned = planned.order === 'execution-count' ? leaveOutIdleUses(planned.sequence, facts, crash) : null;
  if (pruned) {
    const where = pruned.leftOut.map((l) => `code cell ${l.cell} (${l.names.join(', ')})`).join(', ');
    return {
      chosen: planned.order,
      sequence: pruned.sequence,
      unbound: [],
      leftOut: pruned.leftOut.map((l) => ({ ...l, reason: 'unbound' as const })),
      why: `${said} only in ${where}, which nothing up to the crash depends on: left out of the replay, the saved order kept`,
    };
  }
  if (planned.order !== 'file') {
    const inFile = findUnboundUses(fileSequence, facts, crash);
    if (inFile.length === 0) {
      return { chosen: 'file', sequence: [...fileSequence], unbound: [], why: `${said}; file order defines them` };
    }
  }
  const needed = orderByNeed(fileSequence, facts, crash);
  if (needed && findUnboundUses(needed, facts, crash).length === 0) {
    return {
      chosen: 'needed',
      sequence: needed,
      unbound: [],
      why: `${said}, and so does file order; the defining cells were moved before their first use`,
    };
  }
  return {
    chosen: planned.order,
    sequence: [...planned.sequence],
    unbound: first,
    why: `${said}; neither file order nor moving the defining cells up to the crash binds them`,
  };
}

function orderByNeed(
  fileSequence: readonly number[],
  facts: ReadonlyMap<number, CellFacts>,
  crash: { cell: number; ename: string; evalue: string },
): number[] | null {
  let seq = [...fileSequence];
  for (let round = 0; round < 20; round++) {
    const unbound = findUnboundUses(seq, facts, crash);
    if (unbound.length === 0) return seq;
    const u = unbound[0]!;
    // The last definer above the crash that comes after the use.
    const at = seq.indexOf(u.usedIn);
    const definer = [...u.definedIn].reverse().find((d) => seq.indexOf(d) > at && d !== crash.cell);
    if (definer === undefined) return null;
    seq = seq.filter((c) => c !== definer);
    seq.splice(seq.indexOf(u.usedIn), 0, definer);
  }
  return null;
}

/**
 * Pure: whether a cell is idle for the crash in a sequence: not the crashing cell, before it, and it binds or changes
 * nothing a later cell up to the crash loads (a display such as `y_train[:10]`). Names it uses that hold nothing in
 * the replay yet are left aside: what it does to them cannot reach the crash.
 */
function idleForCrash(
  cell: number,
  seq: readonly number[],
  facts: ReadonlyMap<number, CellFacts>,
  crash: { cell: number },
  emptyHere: ReadonlySet<string>,
): boolean {
  const f = facts.get(cell);
  if (!f || cell === crash.cell || f.star) return false;
  const at = seq.indexOf(cell);
  const crashAt = seq.indexOf(crash.cell);
  if (at < 0 || (crashAt >= 0 && at > crashAt)) return false;
  const later = new Set(
    seq.slice(at + 1, crashAt < 0 ? undefined : crashAt + 1).flatMap((c) => facts.get(c)?.loads ?? []),
  );
  // An older analyser gives no `mutates`: then every name the cell loads may be changed by it.
  const touched = [...f.defines, ...(f.mutates ?? f.loads).filter((n) => !emptyHere.has(n))];
  return !touched.some((n) => later.has(n));
}

/**
 * Pure: the planned sequence without the cells that use a name before it is defined, when each such cell is idle
 * for the crash. Null when some unbound use is in a cell the crash may depend on, or nothing is unbound.
 */
export function leaveOutIdleUses(
  sequence: readonly number[],
  facts: ReadonlyMap<number, CellFacts>,
  crash: { cell: number; ename: string; evalue: string },
): { sequence: number[]; leftOut: { cell: number; names: string[] }[] } | null {
  let seq = [...sequence];
  const leftOut: { cell: number; names: string[] }[] = [];
  for (let round = 0; round < 50; round++) {
    const unbound = findUnboundUses(seq, facts, crash);
    if (unbound.length === 0) return leftOut.length > 0 ? { sequence: seq, leftOut } : null;
    const cell = unbound[0]!.usedIn;
    const names = new Set(unbound.filter((u) => u.usedIn === cell).map((u) => u.name));
    if (!idleForCrash(cell, seq, facts, crash, names)) return null;
    leftOut.push({ cell, names: [...names].sort(compareCodePoints) });
    seq = seq.filter((c) => c !== cell);
  }
  return null;
}

/**
 * Pure: the sequence without the cells before the crash that use at once a name no cell of the notebook defines (nor
 * a star import before them could), when each is idle for the crash; cells it may depend on are kept (the replay
 * then stops there, and the triage names the name). Null when there is none to leave out.
 */
export function leaveOutOrphanUses(
  sequence: readonly number[],
  facts: ReadonlyMap<number, CellFacts>,
  crash: { cell: number },
): { sequence: number[]; leftOut: LeftOutCell[] } | null {
  const defined = new Set([...facts.values()].flatMap((f) => f.defines));
  const crashAt = sequence.indexOf(crash.cell);
  if (crashAt < 0) return null;
  const leftOut: LeftOutCell[] = [];
  let seq = [...sequence];
  for (const cell of sequence.slice(0, crashAt)) {
    const f = facts.get(cell);
    if (!f || !f.parsed) continue;
    const at = seq.indexOf(cell);
    if (seq.slice(0, at + 1).some((c) => facts.get(c)?.star)) break;
    const orphans = new Set((f.undefinedNow ?? f.undefined).filter((n) => !defined.has(n)));
    if (orphans.size === 0 || !idleForCrash(cell, seq, facts, crash, orphans)) continue;
    leftOut.push({ cell, names: [...orphans].sort(compareCodePoints), reason: 'undefined' });
    seq = seq.filter((c) => c !== cell);
  }
  return leftOut.length > 0 ? { sequence: seq, leftOut } : null;
}
