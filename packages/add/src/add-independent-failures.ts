// After a draft's run: a cell before the crash that failed in the replay while the crash does not depend on it is
// left out, and the draft runs again. Real notebooks hold cells that only look at other things (another table, a
// plot, a tutorial's aside) and that fail here for reasons of their own — a column the derived data lacks, a session
// the notebook no longer holds —; the crash never needed them, and stopping there hides it.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Instance, InstanceVerification } from '@junobench/core';
import { parseNotebook } from '@junobench/notebook';
import type { AnalyzeOptions, CellFacts } from '@junobench/reproduce';
import { recordEdit } from './add-reproduction.js';

/**
 * A run that stopped in a code cell before the crash cell, when the crash's backward slice (name analysis of the
 * cells up to the crash: what binds or may change a name the crash needs, in turn) does not hold that cell: the cell
 * is commented out whole, with the cells that use a name only it binds (an `order` edit each, with why), and the
 * draft runs again — at most three times. Not when a shim stands in for the failure (`shimForFailure`), nor when
 * the cell, or one left out with it, writes a file, nor when its failure is the network's (a later cell may read what
 * it writes or downloads: name analysis does not follow files), nor when the slice holds one of them.
 */
export async function leaveOutIndependentFailures(
  staging: string,
  instance: Instance,
  verification: InstanceVerification,
  verify: (dir: string) => Promise<InstanceVerification>,
  analyzer: AnalyzeOptions,
): Promise<{ instance: Instance; verification: InstanceVerification; changed: boolean }> {
  const { analyzeCells, cellsOutsideSlice, crashSlice, commentOutLines, editCells, isNetworkFailure, shimForFailure } =
    await import('@junobench/reproduce');
  const crashCell = instance.crash.cell;
  const runOrder = instance.execution?.cells;
  let changed = false;
  for (let round = 0; round < 3; round++) {
    const v = verification.reproduced;
    const o = v.observed;
    // A download that failed is not left out: what it fetches is likely read later from disk, past name analysis.
    if (v.outcome !== 'crash-mismatch' || !o || o.cell >= crashCell || isNetworkFailure(o)) break;
    const file = path.join(staging, 'reproduced.ipynb');
    const nb = parseNotebook(await readFile(file, 'utf8'), 'reproduced.ipynb');
    const code = nb.cells.filter((c) => c.cell_type === 'code');
    const sources = code.map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source));
    // A failure a shim stands in for is the shims' (the caller runs them next), not a reason to leave the cell out.
    if (shimForFailure(o, sources[o.cell])) break;
    const analyzed = await analyzeCells(
      sources.map((source, index) => ({ index, source })),
      analyzer,
    );
    const facts = withoutModuleState(analyzed.cells);
    const slice = crashSlice(facts, crashCell, runOrder);
    const out = cellsOutsideSlice(facts, crashCell, [o.cell], slice, runOrder);
    if (!out || [...out.keys()].some((c) => (facts[c]?.writes.length ?? 0) > 0)) break;
    const failure = `${o.ename}: ${o.evalue.split('\n')[0]!.slice(0, 120)}`;
    const next = editCells(nb, (ci, src) =>
      out.has(ci)
        ? commentOutLines(src, [
            {
              cell: ci,
              line: 1,
              endLine: src.split('\n').length,
              note:
                ci === o.cell
                  ? 'left out: it failed in the replay, and the crash does not depend on it'
                  : 'left out: it uses a name only a cell left out binds, and the crash does not depend on it',
              whole: true,
            },
          ])
        : src,
    );
    await writeFile(file, `${JSON.stringify(next, null, 1)}\n`);
    for (const [cell, why] of out)
      instance = await recordEdit(staging, instance, {
        kind: 'order',
        cell,
        from: `code cell ${cell}`,
        why:
          cell === o.cell
            ? `left out of the replay: it failed there (${failure}) and the crash does not depend on it (name analysis of the cells up to the crash: it binds and changes nothing the crash cell needs)`
            : `left out of the replay: ${why}, and the crash does not depend on it`,
      });
    changed = true;
    verification = await verify(staging);
  }
  return { instance, verification, changed };
}

// A call on a module (`plt.figure()`, `np.random.seed(0)`) counts for the analyser as a change of that module's name,
// which would put every plotting cell into the slice of a crash that plots. Here a failing cell is left out only when
// the crash needs nothing it binds or changes: a module's own state is not taken for such a change.
function withoutModuleState(facts: readonly CellFacts[]): CellFacts[] {
  const modules = new Set(facts.flatMap((f) => f.imports.map((i) => i.alias)));
  return facts.map((f) => (f.mutates ? { ...f, mutates: f.mutates.filter((n) => !modules.has(n)) } : f));
}
