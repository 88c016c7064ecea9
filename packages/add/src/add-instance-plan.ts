import {
  JunoError,
  compareCodePoints,
  type ExpectedCrash,
  type LibraryName,
  type SourceDataset,
  type InstanceSource,
} from '@junobench/core';
import {
  listCodeCells,
  mineNamelessErrors,
  type CodeCell,
  type MinedCrash,
  type Notebook,
  type NotebookCell,
} from '@junobench/notebook';

export interface ReproducedPlan {
  notebook: Notebook;
  order: 'file' | 'execution-count';
  /** Index of the crashing cell among the reproduced notebook's code cells. */
  crashCell: number;
  /** The original code-cell indices kept, in the reproduced notebook's file order. */
  keptCells: number[];
  /** Data paths rewritten: `from → to`, for the report. */
  rewrites: string[];
  /**
   * Original code-cell indices that ran before the crash but saved an error of
   * their own, left out: a run stops at the first error, so keeping one would
   * stop the replay there and the chosen crash would never be reached.
   */
  droppedErrors: number[];
  /**
   * Cells above the crash whose saved count is higher than the crash's: they
   * were re-run after it, and the count of their earlier run was overwritten.
   * `replayedAt` is the free count below the crash's they are replayed at,
   * null when no such count is left (they did not run before the crash).
   */
  rerunAfter: { cell: number; savedCount: number; replayedAt: number | null }[];
  /**
   * Kaggle input paths in kept cells (original code-cell index) that no
   * collected source provably holds: left as they are, for the report.
   */
  unresolvedInputs: { cell: number; path: string }[];
}

/** What the notebook's Kaggle inputs are, for rewriting their paths to `data/`. */
export interface DataInputs {
  /** The folders its sources mount at /kaggle/input/<mount>/ (datasets and competitions). */
  mounts: readonly string[];
  /** The top-level names of a mount's downloaded files (old one-source kernels read `../input/<file>`). */
  topLevel?: ReadonlyMap<string, readonly string[]>;
  /**
   * Kaggle's newer layout, `/kaggle/input/datasets/<owner>/<slug>/` and
   * `/kaggle/input/competitions/<slug>/`: `datasets/<owner>/<slug>` or
   * `competitions/<slug>` (lower case) → the mount of that collected source.
   */
  refs?: ReadonlyMap<string, string>;
  /**
   * Whether `mounts` are all the inputs the notebook had (a collected Kaggle
   * kernel): then any other /kaggle/input/<x> is left as is and reported.
   * Otherwise (a plain notebook: nothing is known) it becomes data/<x>, where
   * the user puts it.
   */
  complete: boolean;
}

const PLAIN: DataInputs = { mounts: [], complete: false };

/**
 * Pure: the reproduced notebook for a mined crash — the code cells needed to
 * reach it, outputs cleared, data paths rewritten to `data/`.
 *
 * When the saved execution counts show the session ran the cells before the
 * crash top to bottom (every one of them run, counts increasing, all before
 * the crash's), the notebook keeps file order and everything up to the
 * crashing cell. Otherwise (out-of-order runs, cells skipped or re-run) it
 * keeps the cells that ran before the crash and the crashing one, with their
 * counts renumbered 1…k in replay order, and `execution.order` is
 * `execution-count`, which replays them as the session did. A cell above
 * the crash that was re-run after it (a higher count) is put back at the
 * count its earlier run left free (see `rerunAfter`); when that makes the
 * replay the file's order, the notebook keeps file order. A cell before
 * the crash that saved an error of its own (the notebook has several; `add
 * --crash n` chose a later one) is left out, or the replay would stop there.
 */
export function planReproducedNotebook(nb: Notebook, crash: MinedCrash, inputs: DataInputs = PLAIN): ReproducedPlan {
  const cells = listCodeCells(nb);
  const target = cells[crash.codeCell];
  if (!target) throw new JunoError('E_INTERNAL', `mined crash names code cell ${crash.codeCell}, which does not exist`);
  const crashCount = target.executionCount;
  const before = cells.slice(0, crash.codeCell);
  const ranBefore =
    crashCount === null ? [] : cells.filter((c) => c.executionCount !== null && c.executionCount < crashCount);
  const topToBottom =
    crashCount === null ||
    (before.every(
      (c, i) =>
        c.executionCount !== null &&
        c.executionCount < crashCount &&
        (i === 0 || c.executionCount > before[i - 1]!.executionCount!),
    ) &&
      ranBefore.length === before.length);
  const erred = (ci: number) =>
    ci !== crash.codeCell && (cells[ci]!.cell.outputs ?? []).some((o) => o.output_type === 'error');
  // Replay position of each needed cell (out-of-order sessions only): its saved count.
  const at = new Map<number, number>();
  const rerunAfter: ReproducedPlan['rerunAfter'] = [];
  if (!topToBottom) {
    for (const c of ranBefore) at.set(c.index, c.executionCount!);
    at.set(crash.codeCell, crashCount!);
    // A notebook keeps only the count of each cell's last run. A cell above the
    // crash with a higher count was re-run after it; if it also ran before (a
    // user working down the notebook does), that run's count is one no cell
    // holds any more. Each such cell takes the first free count after the cell
    // above it that ran before the crash; when every count below the crash's is
    // some other cell's, it cannot have run before the crash and stays out.
    const taken = new Set(ranBefore.map((c) => c.executionCount!));
    for (const c of before) {
      if (c.executionCount === null || c.executionCount <= crashCount! || erred(c.index)) continue;
      let k = Math.max(0, ...[...at].filter(([ci]) => ci < c.index).map(([, n]) => n)) + 1;
      while (k < crashCount! && taken.has(k)) k++;
      const replayedAt = k < crashCount! ? k : null;
      if (replayedAt !== null) {
        taken.add(replayedAt);
        at.set(c.index, replayedAt);
      }
      rerunAfter.push({ cell: c.index, savedCount: c.executionCount, replayedAt });
    }
  }
  const needed = topToBottom ? [...before.map((c) => c.index), crash.codeCell] : [...at.keys()].sort((a, b) => a - b);
  const droppedErrors = needed.filter(erred);
  const kept = needed.filter((ci) => !erred(ci));
  const keptSet = new Set(kept);
  const replay = topToBottom ? kept : [...kept].sort((a, b) => at.get(a)! - at.get(b)! || a - b);
  // Re-run cells put back where they ran can make the session a plain top-to-bottom run.
  const everyCellAbove = [...before.map((c) => c.index), crash.codeCell].filter((ci) => !erred(ci));
  const fileOrder =
    topToBottom ||
    (rerunAfter.some((r) => r.replayedAt !== null) &&
      replay.length === everyCellAbove.length &&
      replay.every((ci, i) => ci === everyCellAbove[i]));
  const order: ReproducedPlan['order'] = fileOrder ? 'file' : 'execution-count';
  const renumber = new Map(replay.map((ci, i) => [ci, i + 1]));
  const lastPosition = Math.max(...kept.map((ci) => cells[ci]!.cellIndex));
  const rewrites = new Set<string>();
  const unresolvedInputs: ReproducedPlan['unresolvedInputs'] = [];

  const out: NotebookCell[] = [];
  let codeIndex = -1;
  nb.cells.forEach((cell, position) => {
    if (position > lastPosition) return;
    if (cell.cell_type !== 'code') {
      out.push(cell);
      return;
    }
    codeIndex++;
    if (!keptSet.has(codeIndex)) return;
    const code = cell as CodeCell;
    const source = Array.isArray(code.source) ? code.source.join('') : code.source;
    const unresolved = new Set<string>();
    const rewritten = rewriteDataPaths(source, inputs, rewrites, unresolved);
    for (const p of unresolved) unresolvedInputs.push({ cell: codeIndex, path: p });
    out.push({
      ...code,
      source: Array.isArray(code.source) ? splitLines(rewritten) : rewritten,
      execution_count: order === 'file' ? null : renumber.get(codeIndex)!,
      outputs: [],
    });
  });
  return {
    notebook: { ...nb, cells: out },
    order,
    crashCell: kept.indexOf(crash.codeCell),
    keptCells: kept,
    rewrites: [...rewrites].sort(compareCodePoints),
    droppedErrors,
    rerunAfter,
    unresolvedInputs,
  };
}

function splitLines(text: string): string[] {
  return text.split(/(?<=\n)/).filter((l) => l !== '');
}

/**
 * Pure: Kaggle input paths → the instance's data/ folder, which the notebook
 * sees as its working directory: `/kaggle/input/<mount>/…` and
 * `../input/<mount>/…` → `data/<mount>/…`. Old Kaggle kernels with one data
 * source read its files straight from `../input/<file>`: with exactly one
 * mount, a name among that mount's downloaded top-level files becomes
 * `data/<mount>/<file>`. Any other name of a collected Kaggle kernel (an input
 * we did not collect: another dataset, a model, a kernel's output) is left as
 * it is and added to `unresolved`; in a plain notebook it becomes
 * `data/<name>`. `/kaggle/working/x` → `x` (the working directory).
 */
export function rewriteDataPaths(
  source: string,
  inputs: DataInputs = PLAIN,
  seen?: Set<string>,
  unresolved?: Set<string>,
): string {
  const known = new Set(inputs.mounts);
  const only = inputs.mounts.length === 1 ? inputs.mounts[0]! : undefined;
  const onlyFiles = new Set(only !== undefined ? (inputs.topLevel?.get(only) ?? []) : []);
  // One path segment, or the newer layout's datasets/<owner>/<slug> and competitions/<slug>.
  const name = `[^/'"\\s)\\],;]+`;
  const input = new RegExp(
    `(?:/kaggle/input|\\.\\./input)(?:/(datasets/${name}/${name}|competitions/${name}|${name}))?(?=[/'"\\s)\\],;]|$)`,
    'g',
  );
  let out = source.replace(input, (all: string, seg: string | undefined) => {
    let to: string;
    const head = seg?.split('/')[0];
    if (seg !== undefined && seg.includes('/') && !known.has(head!)) {
      // Newer layout: provably a source only by its ref; a plain notebook's goes to data/<slug>, where the user puts
      // it.
      const mount = inputs.refs?.get(seg.toLowerCase());
      if (mount !== undefined) to = `data/${mount}`;
      else if (!inputs.complete) to = `data/${seg.split('/').pop()!}`;
      else {
        unresolved?.add(all);
        return all;
      }
      seen?.add(`${all} → ${to}`);
      return to;
    }
    if (head !== undefined && known.has(head)) {
      // An old-layout mount named like the newer layout's folders: the rest is a path inside it.
      to = `data/${seg}`;
      seen?.add(`${all} → ${to}`);
      return to;
    }
    if (seg === undefined) to = 'data';
    else if (known.has(seg)) to = `data/${seg}`;
    else if (onlyFiles.has(seg)) to = `data/${only}/${seg}`;
    else if (!inputs.complete) to = `data/${seg}`;
    else {
      unresolved?.add(all);
      return all;
    }
    seen?.add(`${all} → ${to}`);
    return to;
  });
  out = out.replace(/\/kaggle\/working\/(?=[^/'"\s])/g, (all: string) => {
    seen?.add(`${all} → (working directory)`);
    return '';
  });
  out = out.replace(/\/kaggle\/working(?=['"\s)\],;]|$)/g, (all: string) => {
    seen?.add(`${all} → .`);
    return '.';
  });
  return out;
}

/**
 * Pure: the crash to expect, from the mined one. The exception class without
 * its module; the message exact, except that memory addresses (which change
 * every run) become a regular expression, and a long multi-line message
 * (library errors with their own traceback) is matched on its first line.
 * With `inputs`, data paths in the message are rewritten as in the cells
 * (a FileNotFoundError names the path the reproduced notebook opens).
 */
export function planExpectedCrash(crash: MinedCrash, cell: number, inputs?: DataInputs): ExpectedCrash {
  const ename = crash.ename.split('.').pop() || crash.ename;
  const evalue = inputs ? rewriteDataPaths(crash.evalue, inputs) : crash.evalue;
  // Memory addresses change every run; where a library is installed (`… from 'x' (C:\\…\\__init__.py)`) every machine.
  const varying = [...evalue.matchAll(/0x[0-9a-fA-F]{6,}|(?<=\()(?:[A-Za-z]:\\|\/|~)[^()\n]*\.py(?=\))/g)];
  if (varying.length > 0) {
    const escape = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    let pattern = '';
    let last = 0;
    for (const m of varying) {
      pattern += escape(evalue.slice(last, m.index)) + (m[0].startsWith('0x') ? '0x[0-9a-fA-F]+' : '[^()\\n]*\\.py');
      last = m.index + m[0].length;
    }
    return { ename, evalue: `^${pattern}${escape(evalue.slice(last))}$`, match: 'regex', cell };
  }
  if (evalue.includes('\n') && evalue.length > 300)
    return { ename, evalue: evalue.split('\n')[0]!, match: 'prefix', cell };
  return { ename, evalue, match: 'exact', cell };
}

/**
 * Pure: the modules the instance requires — the reproduced notebook's imports
 * (top level, outside the standard library) — less the one whose absence IS
 * the crash (`ModuleNotFoundError: No module named 'x'`): requiring it would
 * make every runtime skip the instance ("not importable"), and a runtime that
 * has it could not reproduce the crash anyway.
 */
export function planRequires(
  imports: readonly string[],
  crash: Pick<MinedCrash, 'ename' | 'evalue'>,
  stdlib: ReadonlySet<string>,
): string[] {
  const missing =
    (crash.ename.split('.').pop() === 'ModuleNotFoundError' &&
      /^No module named '([A-Za-z_][A-Za-z0-9_]*)'/.exec(crash.evalue)?.[1]) ||
    undefined;
  return imports.filter((m) => !stdlib.has(m) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(m) && m !== missing);
}

/**
 * Pure: the languages a notebook's metadata declares for its kernel
 * (`kernelspec.language`, `language_info.name`), as written, each once
 * (case aside); none when it declares none.
 */
export function parseNotebookLanguages(nb: Notebook): string[] {
  const meta = nb.metadata as { kernelspec?: { language?: unknown }; language_info?: { name?: unknown } } | undefined;
  const declared = [meta?.kernelspec?.language, meta?.language_info?.name].filter(
    (l): l is string => typeof l === 'string' && l.trim() !== '',
  );
  const byCase = new Map<string, string>();
  for (const l of declared) if (!byCase.has(l.trim().toLowerCase())) byCase.set(l.trim().toLowerCase(), l.trim());
  return [...byCase.values()];
}

/** Whether a saved error is the user stopping a cell (Jupyter's interrupt), not a crash. */
export function isInterruption(crash: Pick<MinedCrash, 'ename'>): boolean {
  return crash.ename.split('.').pop() === 'KeyboardInterrupt';
}

/** One line per mined crash, as `add` lists them when it must ask which one. */
export function describeMinedCrashes(crashes: readonly MinedCrash[]): string[] {
  return crashes.map((c, i) => {
    const first = c.evalue.split('\n')[0]!;
    const msg = first.length > 100 ? `${first.slice(0, 97)}…` : first;
    const what = isInterruption(c)
      ? `${c.ename}${msg ? `: ${msg}` : ''} (the user stopped the cell: not a crash)`
      : `${c.ename}: ${msg}`;
    return `${i + 1}: code cell ${c.codeCell}${c.executionCount !== null ? ` (In [${c.executionCount}])` : ''}: ${what}`;
  });
}

/**
 * Pure: the crash `--crash n` (1-based) picks, or an error listing them.
 * A KeyboardInterrupt is the user stopping a cell, which no replay
 * reproduces: it is never taken, and without --crash the one real crash
 * beside interruptions is taken.
 */
/**
 * Pure: whether no code cell keeps anything of a run (no output, no execution count). Stripped notebooks (nbstripout,
 * "Clear All Outputs"), never-run ones, and what `kaggle kernels pull` returns — the source Kaggle stores — look alike.
 */
export function hasNoSavedRun(nb: Notebook): boolean {
  return listCodeCells(nb).every((c) => c.executionCount === null && (c.cell.outputs ?? []).length === 0);
}

/**
 * Pure: whether `downloaded` (a notebook saved with its outputs, e.g. from the kernel's page on kaggle.com) has the
 * same code as `collected` (the source the platform gave): the same number of code cells with the same sources
 * (line endings aside). Returns why not, or null when they match.
 */
export function planSameCode(collected: Notebook, downloaded: Notebook): string | null {
  const norm = (source: string) => source.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
  const a = listCodeCells(collected);
  const b = listCodeCells(downloaded);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (norm(a[i]!.source) !== norm(b[i]!.source)) return `code cell ${i} differs`;
  }
  if (a.length !== b.length)
    return `it has ${b.length} code cell${b.length === 1 ? '' : 's'}, the collected notebook ${a.length}`;
  return null;
}

export function chooseCrash(
  crashes: readonly MinedCrash[],
  n: number | undefined,
  file: string,
  nb?: Notebook,
): { crash: MinedCrash; index: number } {
  if (crashes.length === 0) {
    // Error outputs without an exception name are a front end's messages (the kernel did not start, or died): no
    // exception of the code to reproduce. Say what they were, not that there were none.
    const nameless = nb !== undefined ? mineNamelessErrors(nb) : [];
    if (nameless.length > 0) {
      const first = nameless[0]!;
      throw new JunoError(
        'E_INPUT_EMPTY',
        `the notebook's only error output${nameless.length > 1 ? `s (${nameless.length}) name` : ' names'} no exception: a message its front end saved (code cell ${first.codeCell}: ${JSON.stringify(first.text)}), not an exception its code raised: there is no crash to reproduce`,
        {
          location: { file },
          hint: 'add takes a notebook saved with the outputs of a run that crashed (an error output with the exception, e.g. "KeyError")',
        },
      );
    }
    const stripped = nb !== undefined && hasNoSavedRun(nb);
    throw new JunoError(
      'E_INPUT_EMPTY',
      `the notebook has no saved error output${stripped ? ' — it has no saved outputs or execution counts at all (saved without outputs, or never run)' : ''}: there is no crash to reproduce`,
      {
        location: { file },
        hint: 'add takes a notebook saved with the outputs of a run that crashed (the error output in a code cell)',
      },
    );
  }
  const real = crashes.filter((c) => !isInterruption(c));
  if (n === undefined) {
    if (real.length === 0) {
      throw new JunoError(
        'E_INPUT_EMPTY',
        `the notebook's only saved error output${crashes.length > 1 ? 's are' : ' is'} KeyboardInterrupt (the user stopped a cell): there is no crash to reproduce`,
        {
          location: { file },
          hint: 'add takes a notebook saved with the outputs of a run that crashed (the error output in a code cell)',
        },
      );
    }
    if (real.length === 1) return { crash: real[0]!, index: crashes.indexOf(real[0]!) };
    throw new JunoError(
      'E_USAGE',
      `the notebook has ${crashes.length} saved error outputs; choose one with --crash <n>:\n  ${describeMinedCrashes(crashes).join('\n  ')}`,
      {
        location: { file },
        hint: `e.g. junobench add ${file} --crash ${crashes.indexOf(real[0]!) + 1}`,
      },
    );
  }
  if (!Number.isInteger(n) || n < 1 || n > crashes.length) {
    throw new JunoError(
      'E_USAGE',
      `--crash ${n} does not name a saved error output (the notebook has ${crashes.length}):\n  ${describeMinedCrashes(crashes).join('\n  ')}`,
      {
        location: { file },
      },
    );
  }
  if (isInterruption(crashes[n - 1]!)) {
    throw new JunoError(
      'E_USAGE',
      `--crash ${n} is a KeyboardInterrupt (the user stopped code cell ${crashes[n - 1]!.codeCell}), not a crash: no replay reproduces it`,
      {
        location: { file },
        hint:
          real.length > 0
            ? `choose a crash: ${describeMinedCrashes(crashes)
                .filter((_, i) => !isInterruption(crashes[i]!))
                .join('; ')}`
            : 'the notebook saved no crash',
      },
    );
  }
  return { crash: crashes[n - 1]!, index: n - 1 };
}

/** The id prefix of a library, as the benchmark names instances (`tensorflow_1`, `NBspecific_2`). */
export function idPrefixOfLibrary(library: LibraryName | string | undefined): string {
  if (!library || library === 'None') return 'NBspecific';
  if (library === 'tensorflow/keras') return 'tensorflow';
  return library.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[^A-Za-z0-9]+/, '') || 'unknown';
}

/**
 * Pure: `<prefix>_<n>` with n one more than the highest number any existing
 * or deprecated id with that prefix has — ids are never reused, so a
 * deprecated number is never handed out again.
 */
export function nextInstanceId(prefix: string, taken: Iterable<string>): string {
  let max = 0;
  const re = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_(\\d+)$`);
  for (const id of taken) {
    const m = re.exec(id);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return `${prefix}_${max + 1}`;
}

/** Pure: the instance's `source` from a source record — no owner name, no notebook URL (it names the owner). */
export function instanceSourceOf(record: {
  platform: 'kaggle' | 'github';
  authorId: string;
  datasets: readonly SourceDataset[];
}): InstanceSource {
  return {
    platform: record.platform,
    authorId: record.authorId,
    datasets: record.datasets.map((d) => ({
      title: d.title,
      license: d.license ?? 'none declared (the data may not be shared: use synthetic data)',
      url: d.url,
    })),
  };
}
