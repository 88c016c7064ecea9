// The reproduction machinery (@junobench/reproduce) wired into `add`: the
// replay order checked, the packages and inputs planned, the inputs put into
// the draft (downloaded, or derived with the synthetic-table machinery of
// @junobench/subsample, composed here because one domain package never
// imports another), and the draft triaged after its run. README, "Reproducing
// real crashes".
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  compareCodePoints,
  createRng,
  formatJson,
  type DraftTriage,
  type ExpectedCrash,
  type Instance,
  type InstanceVerification,
  type LockedDownload,
  type OrderCheck,
  type ReproductionEdit,
  type SourceDataset,
  type SourceRecord,
} from '@junobench/core';
import {
  DEFAULT_CELL_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  listCodeCells,
  parseNotebook,
  planExecution,
  type MinedCrash,
  type Notebook,
} from '@junobench/notebook';
import type { ApiShim, DefinedAfterCrash } from '@junobench/reproduce';
import type { CommandRunner } from '@junobench/runtime';
import type { SuggestInput } from '@junobench/suggest';
import type {
  DerivedTable,
  DraftInputsPlan,
  FinishedDraftInputs,
  ModuleProfile,
  RecordedCrash,
  ReplayOrderChoice,
  ResolvedNeed,
} from '@junobench/reproduce';
import { planReproducedNotebook, type DataInputs, type ReproducedPlan } from './add-instance-plan.js';

export interface ReproduceOptions {
  /** The interpreter the analyser runs under (Debian's python3 has pyflakes and IPython). */
  python: string;
  run: CommandRunner;
  /** Which top-level modules the runtime can import; absent = not checked. */
  importable?: (modules: readonly string[]) => Promise<Record<string, boolean>>;
  profiles?: readonly ModuleProfile[];
  /** Downloads a URL; absent = offline. */
  fetchUrl?: (url: string) => Promise<Buffer>;
  /** `--data`: files or folders copied into the draft's data/ (by their names). */
  data?: readonly string[];
  seed?: string;
  /**
   * Runs the given cells of a draft's notebook and reports the names a target cell reads with their types, as the
   * kernel holds them then (the runtime context's probe); absent = the label suggestions read the traceback only.
   */
  captureState?: (target: ReplayStateTarget) => Promise<{ name: string; type: string }[] | undefined>;
}

/** The state before a draft's crashing cell: its folder, notebook, the cells replayed before it, and its source. */
export interface ReplayStateTarget {
  instanceDir: string;
  notebook: string;
  cells: number[];
  target: string;
  cellTimeoutSeconds: number;
  timeoutSeconds: number;
}

export interface DraftReproduction {
  order: OrderCheck;
  choice: ReplayOrderChoice;
  /** execution.cells when the order the crash needs is neither the saved nor the file order. */
  executionCells?: [number, ...number[]];
  inputs: DraftInputsPlan;
  /** `--data` entries: source file → instance-relative path under data/. */
  dataCopies: { from: string; to: string }[];
  /** Runs of the saved session before the crash that no cell holds any more. */
  unseenRuns?: { count: number; from: number; to: number; justBefore?: { from: number; to: number } };
  /** The crashing line of the saved traceback, when the crash cell no longer holds it. */
  editedCrashLine?: { line: number; text: string };
  /** The saved crash's traceback: where the saved run's exception came from, compared with the replay's. */
  savedTraceback: readonly string[];
  /** Names the crash cell uses that the notebook's cells define only after the crash. */
  definedAfterCrash?: DefinedAfterCrash[];
  /** Code cells of reproduced.ipynb that ran without error in the saved session. */
  ranInSession: number[];
  warnings: string[];
}

/** Colab and others save "ignored" for the message: take it from the traceback's last line. */
export async function recoverCrashMessage(crash: MinedCrash): Promise<{ crash: MinedCrash; warning?: string }> {
  const { recoverHiddenMessage } = await import('@junobench/reproduce');
  const msg = recoverHiddenMessage(crash);
  if (msg === null) return { crash };
  return {
    crash: { ...crash, evalue: msg },
    warning: `the saved message of the crash is hidden (${JSON.stringify(crash.evalue)}, as Colab saves it): taken from the traceback's last line instead: ${msg.slice(0, 120)}`,
  };
}

function withoutCounts(nb: Notebook): Notebook {
  return {
    ...nb,
    cells: nb.cells.map((c) => (c.cell_type === 'code' ? { ...c, execution_count: null } : c)),
  };
}

/**
 * Plan the reproduction of a draft: check the replay order by name analysis
 * (falling back to file order, or to the order the crash needs), then plan
 * its packages and inputs on the reproduced notebook.
 */
export async function planDraftReproduction(
  nb: Notebook,
  crash: MinedCrash,
  inputs: DataInputs,
  planned: ReproducedPlan,
  collectedFiles: readonly string[],
  options: ReproduceOptions,
): Promise<{ reproduced: ReproducedPlan; reproduction: DraftReproduction }> {
  const {
    analyzeCells,
    chooseReplayOrder,
    commentOutLines,
    editCells,
    findCellsThatRan,
    findDefinedAfterCrash,
    findEditedCrashLine,
    findUnseenRuns,
    planDraftInputs,
  } = await import('@junobench/reproduce');
  const analyze = (cells: { index: number; source: string }[]) => analyzeCells(cells, options);
  const original = listCodeCells(nb);
  const unseenRuns = findUnseenRuns(
    original.map((c) => c.executionCount),
    crash.executionCount,
  );
  const crashSource = original.find((c) => c.index === crash.codeCell)?.source;
  const editedCrashLine = crashSource !== undefined ? findEditedCrashLine(crash.traceback, crashSource) : undefined;
  const whole = await analyze(original.map((c) => ({ index: c.index, source: c.source })));
  const facts = new Map(whole.cells.map((f) => [f.index, f]));
  const inFile = planReproducedNotebook(withoutCounts(nb), crash, inputs);
  const replay = listCodeCells(planned.notebook);
  const sequence =
    planned.order === 'file'
      ? planned.keptCells
      : planned.keptCells
          .map((ci, i) => ({ ci, at: replay[i]!.executionCount ?? 0 }))
          .sort((a, b) => a.at - b.at)
          .map((x) => x.ci);
  const counts = new Map(original.map((c) => [c.index, c.executionCount]));
  const definedAfterCrash = findDefinedAfterCrash(facts, counts, {
    cell: crash.codeCell,
    count: crash.executionCount,
  });
  const choice = chooseReplayOrder(
    { order: planned.order, sequence },
    inFile.keptCells,
    facts,
    { cell: crash.codeCell, ename: crash.ename, evalue: crash.evalue },
    counts,
  );
  const base = choice.chosen === planned.order ? planned : inFile;
  const reproduced = choice.leftOut ? leaveOutCells(base, choice.leftOut, editCells, commentOutLines) : base;
  const executionCells =
    choice.chosen === 'needed'
      ? (choice.sequence.map((ci) => reproduced.keptCells.indexOf(ci)) as [number, ...number[]])
      : undefined;
  const dataCopies = (options.data ?? []).map((f) => ({ from: path.resolve(f), to: `data/${path.basename(f)}` }));
  const dataFiles = [...collectedFiles, ...(await listCopies(dataCopies))];
  const cells = listCodeCells(reproduced.notebook);
  const factsRepro = await analyze(cells.map((c) => ({ index: c.index, source: c.source })));
  // Top-level packages, and the submodules imported from them (a version may lack one: `pandas.tools`).
  const imported = [
    ...new Set(factsRepro.cells.flatMap((f) => f.imports.flatMap((i) => [i.module.split('.')[0]!, i.module]))),
  ];
  const importable = options.importable && imported.length > 0 ? await options.importable(imported) : undefined;
  const planInputs = planDraftInputs({
    notebook: reproduced.notebook,
    crashCell: reproduced.crashCell,
    crash: { ename: crash.ename, evalue: crash.evalue },
    facts: factsRepro,
    dataFiles,
    ...(importable ? { importable } : {}),
    ...(options.profiles ? { profiles: options.profiles } : {}),
    // Which imports the cells up to the crash use follows the order the replay runs them in.
    runOrder: choice.sequence.map((ci) => reproduced.keptCells.indexOf(ci)).filter((i) => i >= 0),
    savedOutputs: (ci) => original.find((o) => o.index === reproduced.keptCells[ci])?.cell.outputs,
  });
  if (choice.chosen !== planned.order)
    planInputs.edits.push({ kind: 'order', from: planned.order, to: choice.chosen, why: choice.why });
  for (const l of (choice.leftOut ?? []).filter((x) => reproduced.keptCells.includes(x.cell)))
    planInputs.edits.push({
      kind: 'order',
      cell: reproduced.keptCells.indexOf(l.cell),
      from: `code cell ${l.cell} of the original`,
      why:
        l.reason === 'never-ran'
          ? `left out of the replay: it does not parse (${l.names.join(', ')}) and has no execution count, so it never ran in the saved session in this form`
          : `left out of the replay: it uses ${l.names.join(', ')}, which ${l.reason === 'undefined' ? `no cell of the notebook defines (the saved session had ${l.names.length === 1 ? 'it' : 'them'} from a cell since deleted or edited)` : 'the saved execution counts define only later'}, and nothing up to the crash depends on it`,
    });
  const warnings: string[] = [];
  if (choice.chosen !== planned.order)
    warnings.push(`replay order: ${choice.why} (${choice.chosen === 'needed' ? 'execution.cells set' : 'file order'})`);
  if (choice.unbound.length > 0) warnings.push(`replay order: ${choice.why}`);
  for (const m of planInputs.packages.missing.filter((x) => x.usedBeforeCrash))
    warnings.push(
      `module ${m.module} (imported in code cell ${m.cell}) cannot be imported in this runtime and a cell up to the crash uses it`,
    );
  return {
    reproduced: { ...reproduced, notebook: planInputs.notebook },
    reproduction: {
      order: { checked: whole.checker, chosen: choice.chosen, why: choice.why },
      choice,
      ...(executionCells ? { executionCells } : {}),
      inputs: planInputs,
      dataCopies,
      ...(unseenRuns ? { unseenRuns } : {}),
      ...(editedCrashLine ? { editedCrashLine } : {}),
      savedTraceback: crash.traceback,
      ...(definedAfterCrash.length > 0 ? { definedAfterCrash } : {}),
      ranInSession: findCellsThatRan(
        reproduced.keptCells.map((ci) => {
          const c = original.find((o) => o.index === ci);
          return {
            executionCount: c?.executionCount ?? null,
            hasError: (c?.cell.outputs ?? []).some((o) => o.output_type === 'error'),
          };
        }),
      ),
      warnings,
    },
  };
}

/** The planned notebook with the given cells (original indices) commented out whole, so the replay skips them. */
function leaveOutCells(
  planned: ReproducedPlan,
  leftOut: readonly { cell: number; reason: string }[],
  editCells: typeof import('@junobench/reproduce').editCells,
  commentOutLines: typeof import('@junobench/reproduce').commentOutLines,
): ReproducedPlan {
  const at = new Map(leftOut.map((l) => [planned.keptCells.indexOf(l.cell), l.reason]));
  const notebook = editCells(planned.notebook, (ci, src) =>
    at.has(ci)
      ? commentOutLines(src, [
          {
            cell: ci,
            line: 1,
            endLine: src.split('\n').length,
            note:
              at.get(ci) === 'never-ran'
                ? 'left out: it does not parse and has no execution count, so it never ran in this form'
                : 'left out: it uses a name the replay has not defined here, and the crash does not depend on it',
            whole: true,
          },
        ])
      : src,
  );
  return { ...planned, notebook };
}

async function listCopies(copies: readonly { from: string; to: string }[]): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  const out: string[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    const st = await stat(abs);
    if (st.isDirectory()) {
      for (const e of await readdir(abs)) await walk(path.join(abs, e), `${rel}/${e}`);
    } else out.push(rel);
  };
  for (const c of copies) await walk(c.from, c.to);
  return out;
}

/**
 * Write a derived table with the synthetic-table generator (packages/subsample), seeded, in the file type the
 * code reads: delimited text, an Excel workbook (one sheet) or JSON (records, or one record a line).
 */
export async function writeDerivedTable(table: DerivedTable, file: string, seed: string): Promise<void> {
  const { generateRows, CsvWriter } = await import('@junobench/subsample');
  const profile = { header: table.columns.map((c) => c.name), rows: table.rows, columns: table.columns };
  const rows = orderRows(table, generateRows(profile, table.rows, createRng(`${seed}\u0000synthetic`)));
  if (table.format === 'excel' || table.format === 'json') {
    const typed = rows.map((r) => r.map((v, i) => typedCell(table.columns[i]!.kind, v)));
    if (table.format === 'json') {
      const records = typed.map((r) => Object.fromEntries(r.map((v, i) => [profile.header[i]!, v])));
      const text = table.lines ? records.map((x) => JSON.stringify(x)).join('\n') : JSON.stringify(records, null, 1);
      await writeFile(file, `${text}\n`);
      return;
    }
    const { default: ExcelJS } = await import('exceljs');
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Sheet1');
    if (table.header) sheet.addRow(profile.header);
    for (const r of typed) sheet.addRow(r);
    await writeFile(file, Buffer.from(await book.xlsx.writeBuffer()));
    return;
  }
  const writer = await CsvWriter.open(
    file,
    { delimiter: table.delimiter, eol: '\n', bom: false },
    table.columns.length,
  );
  try {
    if (table.header) await writer.write(profile.header);
    for (const r of rows) await writer.write(r);
    await writer.commit();
  } catch (e) {
    await writer.abort();
    throw e;
  }
}

// Columns the derivation wants in order (a time series' date index) are sorted down the file; dates at a regular
// step (what the saved outputs showed) are that sequence, so that pandas infers the series' frequency.
function orderRows(table: DerivedTable, rows: string[][]): string[][] {
  table.columns.forEach((c, i) => {
    if (c.every && c.min && /^\d{4}-\d{2}-\d{2}$/.test(c.min)) {
      const [y, m, d] = c.min.split('-').map(Number) as [number, number, number];
      rows.forEach((r, k) => {
        const at = c.every!.months
          ? new Date(Date.UTC(y, m - 1 + k * c.every!.months, d))
          : new Date(Date.UTC(y, m - 1, d + k * (c.every!.days ?? 1)));
        r[i] = at.toISOString().slice(0, 10);
      });
      return;
    }
    if (!c.ordered) return;
    const values = rows.map((r) => r[i]!).sort(compareCodePoints);
    rows.forEach((r, k) => (r[i] = values[k]!));
  });
  return rows;
}

function typedCell(kind: DerivedTable['columns'][number]['kind'], v: string): string | number | boolean | null {
  if (v === '') return null;
  if ((kind === 'int' || kind === 'float') && Number.isFinite(Number(v))) return Number(v);
  if (kind === 'bool') return v === 'True';
  return v;
}

export interface MaterializedDraft {
  finished: FinishedDraftInputs;
  resolved: ResolvedNeed[];
  downloads: LockedDownload[];
  /** Inputs the draft has only as synthetic stand-ins, or lacks: by the cell and the path of the original. */
  warnings: string[];
}

/** The Kaggle sources a collected notebook came with (kernel outputs are recorded but never downloaded). */
export function collectedSources(record: { value: SourceRecord } | undefined): SourceDataset[] {
  return (record?.value.datasets ?? []).filter((d) => d.kind !== 'kernel-output');
}

/**
 * One warning per input the draft has only as a synthetic stand-in, or
 * lacks, naming the original's cell and path: a Kaggle input that is none of
 * a collected kernel's sources, or that a plain notebook reads (no datasets
 * come with one), says so.
 */
export async function describeDraftInputs(
  resolved: readonly Pick<ResolvedNeed, 'need' | 'status' | 'reason'>[],
  reproduced: ReproducedPlan,
  sources: readonly SourceDataset[],
  collected: boolean,
): Promise<string[]> {
  const { describeInputEdits } = await import('@junobench/reproduce');
  const unresolved = reproduced.unresolvedInputs.map((u) => u.path);
  const kaggle = /^(?:\/kaggle\/input|\.\.\/input)(?:\/|$)/;
  return describeInputEdits(resolved, {
    originalCell: (ci) => reproduced.keptCells[ci] ?? ci,
    rewrites: reproduced.rewrites,
    remark: (p) =>
      unresolved.some((u) => p === u || p.startsWith(`${u}/`))
        ? `which is not ${sources.length === 0 ? 'a collected source (none was collected)' : `one of the collected sources (${sources.map((d) => `/kaggle/input/${d.mount}`).join(', ')})`}`
        : !collected && kaggle.test(p)
          ? 'a Kaggle input (no datasets come with a plain notebook: `junobench collect kaggle <owner>/<kernel> --with-data` and adding the source folder brings them)'
          : undefined,
  });
}

/**
 * Put the draft's inputs into its staging folder (--data copies, downloads,
 * derived files), rewrite its reproduced notebook to read them, and return
 * the instance fields that record what was done.
 */
export async function materializeDraft(
  staging: string,
  instance: Instance,
  reproduction: DraftReproduction,
  options: ReproduceOptions,
  describe: (resolved: readonly ResolvedNeed[]) => Promise<string[]> = () => Promise.resolve([]),
): Promise<{ instance: Instance; materialized: MaterializedDraft }> {
  const { materializeInputs, finishDraftInputs } = await import('@junobench/reproduce');
  for (const c of reproduction.dataCopies) await copyInto(c.from, path.join(staging, ...c.to.split('/')));
  const seed = options.seed ?? instance.id;
  const resolved = await materializeInputs(reproduction.inputs.needs, staging, {
    ...(options.fetchUrl ? { fetchUrl: options.fetchUrl } : {}),
    writeTable: writeDerivedTable,
    seed,
  });
  const finished = finishDraftInputs(reproduction.inputs, resolved, instance.crash as ExpectedCrash);
  await writeFile(path.join(staging, 'reproduced.ipynb'), `${JSON.stringify(finished.notebook, null, 1)}\n`);
  const downloads: LockedDownload[] = resolved
    .filter((r) => r.status === 'downloaded')
    .map((r) => ({ url: r.need.url!, file: r.need.file, sha256: r.sha256!, bytes: r.bytes! }));
  const edits = [...finished.edits];
  const inputWarnings = await describe(resolved);
  const allWarnings = [...reproduction.warnings, ...inputWarnings];
  const next: Instance = {
    ...instance,
    crash: finished.expected,
    reproduction: {
      edits,
      order: reproduction.order,
      ...(allWarnings.length > 0 ? { warnings: allWarnings } : {}),
    },
    ...(finished.synthetic
      ? {
          data: {
            ...(instance.data ?? {}),
            synthetic: {
              reason: finished.synthetic.reason,
              files: finished.synthetic.files,
              seed,
              derived: finished.synthetic.derived,
            },
          },
        }
      : {}),
  };
  await writeFile(path.join(staging, 'instance.json'), formatJson(next));
  return { instance: next, materialized: { finished, resolved, downloads, warnings: inputWarnings } };
}

async function copyInto(from: string, to: string): Promise<void> {
  const { cp } = await import('node:fs/promises');
  await mkdir(path.dirname(to), { recursive: true });
  const st = await stat(from);
  if (st.isDirectory()) await cp(from, to, { recursive: true, dereference: false });
  else await copyFile(from, to);
}

/**
 * A run that raised the saved exception in the saved cell with another wording of the same failure: a message that
 * holds every word of the saved one and a little more (a newer library words it with more detail) or all but one plain
 * word (relaxDroppedWord), a known rewording
 * of a library, or — with the saved traceback — the same statement of the notebook failing in the same library's code
 * with a message that says the same (matchSameFailureSite). The draft matches either wording, records that edit with
 * why, and is run again.
 */
export async function matchNewerWording(
  staging: string,
  instance: Instance,
  verification: InstanceVerification,
  verify: (dir: string) => Promise<InstanceVerification>,
  savedTraceback: readonly string[] = [],
): Promise<{ instance: Instance; verification: InstanceVerification }> {
  const {
    relaxMessageWording,
    relaxDroppedWord,
    matchRewording,
    matchNarrowerException,
    matchSameFailureSite,
    matchQuotedDataValue,
    matchKernelArgument,
  } = await import('@junobench/reproduce');
  const v = verification.reproduced;
  const o = v.observed;
  if (v.outcome !== 'crash-mismatch' || !o) return { instance, verification };
  const narrower = matchNarrowerException(instance.crash as ExpectedCrash, o);
  if (narrower) {
    const edit = {
      kind: 'match' as const,
      from: instance.crash.ename,
      to: narrower.ename,
      why: `the run raised ${narrower.ename} with the saved message itself in the saved cell: this runtime's library raises a more specific class for the same failure than the saved ${instance.crash.ename}`,
    };
    const next: Instance = {
      ...instance,
      crash: narrower,
      reproduction: { ...(instance.reproduction ?? {}), edits: [...(instance.reproduction?.edits ?? []), edit] },
    };
    await writeFile(path.join(staging, 'instance.json'), formatJson(next));
    return { instance: next, verification: await verify(staging) };
  }
  if (o.ename.split('.').pop() !== instance.crash.ename || o.cell !== instance.crash.cell)
    return { instance, verification };
  const words =
    relaxMessageWording(instance.crash as ExpectedCrash, o.evalue) ??
    relaxDroppedWord(instance.crash as ExpectedCrash, o.evalue);
  const shorter = words !== null && o.evalue.trim().length < instance.crash.evalue.trim().length;
  // The saved text, before synthetic data generalised its numbers (a match edit recorded it).
  const saved =
    instance.crash.match === 'regex'
      ? instance.reproduction?.edits?.find((e) => e.kind === 'match' && e.to === instance.crash.evalue)?.from
      : instance.crash.evalue;
  const known =
    words || saved === undefined
      ? null
      : matchRewording({ ...(instance.crash as ExpectedCrash), evalue: saved, match: 'exact' }, o.evalue);
  const site =
    words || known || saved === undefined
      ? null
      : matchSameFailureSite(
          instance.crash as ExpectedCrash,
          { evalue: saved, traceback: savedTraceback },
          { ...o, traceback: v.cells.find((c) => c.index === o.cell)?.traceback ?? [] },
        );
  // Code that reads sys.argv gets the kernel's command line, which the front end that started the kernel chose.
  const argv =
    words || known || site || saved === undefined
      ? null
      : matchKernelArgument({ ...(instance.crash as ExpectedCrash), evalue: saved, match: 'exact' }, o.evalue);
  // With synthetic data, the value a conversion quotes is the derived data's: any value, the same conversion.
  const value =
    words || known || site || argv || saved === undefined || !instance.data?.synthetic
      ? null
      : matchQuotedDataValue({ ...(instance.crash as ExpectedCrash), evalue: saved, match: 'exact' }, o.evalue);
  const relaxed = words ?? known?.crash ?? site?.crash ?? argv ?? value;
  if (!relaxed) return { instance, verification };
  const said = o.evalue.split('\n')[0]!.slice(0, 160);
  const edit = {
    kind: 'match' as const,
    from: instance.crash.evalue,
    to: relaxed.evalue,
    why: known
      ? `${known.library} words this failure differently in the version this runtime has (${said}): ${known.what}; either wording matches, the exception and the cell stay exact`
      : site
        ? `the run failed where the saved one did — the same statement (${site.statement}), ${site.library}'s code raising ${o.ename.split('.').pop()} — and this runtime's ${site.library} words it otherwise (${said}); either wording matches, the exception and the cell stay exact`
        : argv
          ? `the message quotes the kernel's command line (sys.argv), which the front end that started the kernel chose, not the notebook (${said}): any kernel argument matches where the saved message quotes one; the rest of the message, the exception and the cell stay exact`
          : value
            ? `the data is synthetic and the conversion met another of its values (${said}): the value a conversion quotes is the first the real file had, which derived data cannot know; any quoted value matches, the message's words, the exception and the cell stay exact`
            : shorter
              ? `this runtime's library words the message one word shorter (${said}): either wording matches, the exception and the cell stay exact`
              : `this runtime's library words the message with more detail (${said}): every word of the saved message must appear, in order; the exception and the cell stay exact`,
  };
  const next: Instance = {
    ...instance,
    crash: relaxed,
    reproduction: { ...(instance.reproduction ?? {}), edits: [...(instance.reproduction?.edits ?? []), edit] },
  };
  await writeFile(path.join(staging, 'instance.json'), formatJson(next));
  return { instance: next, verification: await verify(staging) };
}

/**
 * A run that stopped on an API its library removed, where a faithful equivalent exists (`DataFrame.ix`, `np.float`,
 * `pandas.tools.plotting`): the shim goes on top of the cell that failed, the edit is recorded with why, and the
 * draft runs again (at most three times). Not when the saved crash is that removed API itself. A run that went past
 * the crash cell without the saved crash gets the behaviour of the newer library the notebook ran with, when the saved
 * crash depends on one (shimForNewerVersion: an API it removed, a default it changed), and runs once more.
 */
export async function shimRemovedApis(
  staging: string,
  instance: Instance,
  verification: InstanceVerification,
  verify: (dir: string) => Promise<InstanceVerification>,
): Promise<{ instance: Instance; verification: InstanceVerification; changed: boolean }> {
  const { shimForFailure, shimForNewerVersion } = await import('@junobench/reproduce');
  const saved = shimForFailure(instance.crash, await codeCellSource(staging, instance.crash.cell));
  let changed = false;
  const firstLine = (o: { ename: string; evalue: string }) => `${o.ename}: ${o.evalue.split('\n')[0]!.slice(0, 120)}`;
  for (let round = 0; round < 3; round++) {
    const v = verification.reproduced;
    const o = v.observed;
    const found =
      v.outcome === 'crash-mismatch' && o ? shimForFailure(o, await codeCellSource(staging, o.cell)) : undefined;
    if (!found || !o || found.api === saved?.api) break;
    const shim = await shimCell(staging, o.cell, () => found);
    if (!shim) break;
    instance = await recordEdit(staging, instance, {
      kind: 'api',
      cell: o.cell,
      from: shim.api,
      to: 'a shim on top of the cell',
      why: shim.behaviour
        ? `${shim.behaviour} (${firstLine(o)}): this runtime's is newer`
        : `${shim.library} removed ${shim.api} in ${shim.removedIn} and this runtime's is newer (${firstLine(o)}): the shim defines it again on the current API, as it behaved`,
    });
    changed = true;
    verification = await verify(staging);
  }
  // Past the crash cell without the saved crash: the notebook's library may have been newer than the runtime's and
  // the crash its removal or changed default; that version's behaviour goes on top of the crash cell, once.
  const v = verification.reproduced;
  const cell = instance.crash.cell;
  if (v.outcome === 'no-crash' || (v.outcome === 'crash-mismatch' && v.observed && v.observed.cell > cell)) {
    const crash = instance.crash;
    const shim = await shimCell(staging, cell, (src) => shimForNewerVersion(crash, src));
    if (shim) {
      const passed = v.outcome === 'no-crash' ? 'ran to the end' : `ran past code cell ${cell}`;
      instance = await recordEdit(staging, instance, {
        kind: 'api',
        cell,
        from: shim.api,
        to: 'a shim on top of the cell',
        why: `${shim.behaviour ?? `${shim.library} removed ${shim.api} in ${shim.removedIn}`}; the run ${passed} without the saved ${crash.ename}: the notebook ran with a newer ${shim.library || 'library'} than this runtime's, whose behaviour the shim gives it`,
      });
      changed = true;
      verification = await verify(staging);
    }
  }
  return { instance, verification, changed };
}

// A code cell's source in the draft's reproduced.ipynb ('' when there is no such cell).
async function codeCellSource(staging: string, cell: number): Promise<string> {
  const nb = parseNotebook(await readFile(path.join(staging, 'reproduced.ipynb'), 'utf8'), 'reproduced.ipynb');
  const code = nb.cells.filter((c) => c.cell_type === 'code')[cell];
  return code ? (Array.isArray(code.source) ? code.source.join('') : code.source) : '';
}

// The shim `pick` chooses for a code cell of the draft's reproduced.ipynb, put on top of it (once); undefined when
// there is none or the cell has it already.
async function shimCell(
  staging: string,
  cell: number,
  pick: (source: string) => ApiShim | undefined,
): Promise<ApiShim | undefined> {
  const { insertShim, editCells } = await import('@junobench/reproduce');
  const file = path.join(staging, 'reproduced.ipynb');
  const nb = parseNotebook(await readFile(file, 'utf8'), 'reproduced.ipynb');
  let shim: ApiShim | undefined;
  const next = editCells(nb, (ci, src) => {
    if (ci !== cell) return src;
    const found = pick(src);
    const out = found ? insertShim(src, found) : src;
    if (out !== src) shim = found;
    return out;
  });
  if (shim) await writeFile(file, `${JSON.stringify(next, null, 1)}\n`);
  return shim;
}

/** The draft's instance.json with one more reproduction edit, written. */
export async function recordEdit(staging: string, instance: Instance, edit: ReproductionEdit): Promise<Instance> {
  const next: Instance = {
    ...instance,
    reproduction: { ...(instance.reproduction ?? {}), edits: [...(instance.reproduction?.edits ?? []), edit] },
  };
  await writeFile(path.join(staging, 'instance.json'), formatJson(next));
  return next;
}

function timedOut(cells: readonly { index: number; status: string }[] | undefined): { timedOutCell?: number } {
  const c = cells?.find((x) => x.status === 'timeout');
  return c ? { timedOutCell: c.index } : {};
}

/** The draft's triage after its run, written into its instance.json (absent when the crash reproduced). */
export async function triageDraftRun(
  staging: string,
  instance: Instance,
  reproduction: DraftReproduction,
  materialized: MaterializedDraft | undefined,
  verification: InstanceVerification,
): Promise<{ instance: Instance; triage?: DraftTriage }> {
  const { triageDraft } = await import('@junobench/reproduce');
  const v = verification.reproduced;
  const findings = materialized?.finished.findings ?? {
    urls: [],
    missingData: [],
    synthetic: [],
    missingModules: reproduction.inputs.packages.missing,
    gpu: [],
  };
  const triage = triageDraft(
    {
      outcome: v.outcome as 'crash-mismatch',
      ...(v.reason ? { reason: v.reason } : {}),
      ...(v.observed
        ? { observed: { ename: v.observed.ename, evalue: v.observed.evalue, cell: v.observed.cell } }
        : {}),
      expected: { ename: instance.crash.ename, evalue: instance.crash.evalue, cell: instance.crash.cell },
      ...timedOut(v.cells),
    },
    {
      ...findings,
      unbound: reproduction.choice.unbound,
      ...(reproduction.unseenRuns ? { unseenRuns: reproduction.unseenRuns } : {}),
      ...(reproduction.editedCrashLine ? { editedCrashLine: reproduction.editedCrashLine } : {}),
      ...(reproduction.definedAfterCrash ? { definedAfterCrash: reproduction.definedAfterCrash } : {}),
      ranInSession: reproduction.ranInSession,
    },
  );
  const { triage: _old, ...rest } = instance;
  const next: Instance = triage ? { ...rest, triage } : rest;
  await writeFile(path.join(staging, 'instance.json'), formatJson(next));
  return { instance: next, ...(triage ? { triage } : {}) };
}

/**
 * The draft's label suggestions again, with what the replay that reproduced its crash showed: whether it ran top to
 * bottom, its traceback, and the types of the names the crashing line reads (captured by a second run of the cells
 * before it, when the caller can). Written into its instance.json.
 */
export async function suggestFromReplay(
  staging: string,
  instance: Instance,
  input: SuggestInput,
  verification: InstanceVerification,
  options: ReproduceOptions,
): Promise<Instance> {
  const { suggestLabels } = await import('@junobench/suggest');
  const v = verification.reproduced;
  const cell = v.cells.find((c) => c.status === 'error');
  const fileOrder = instance.execution.order === 'file' && !instance.execution.cells;
  let names: { name: string; type: string }[] | undefined;
  if (options.captureState && v.observed) {
    const nb = parseNotebook(await readFile(path.join(staging, 'reproduced.ipynb'), 'utf8'), 'reproduced.ipynb');
    const order = planExecution(nb, instance.execution.order, instance.execution.cells);
    const source = listCodeCells(nb)[v.observed.cell]?.source ?? '';
    const captured = await options
      .captureState({
        instanceDir: staging,
        notebook: 'reproduced.ipynb',
        cells: order.slice(0, order.indexOf(v.observed.cell)),
        target: source,
        cellTimeoutSeconds: instance.execution.cellTimeoutSeconds ?? DEFAULT_CELL_TIMEOUT_SECONDS,
        timeoutSeconds: instance.execution.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      })
      .catch(() => undefined);
    const line = v.observed.line !== undefined ? (source.split('\n')[v.observed.line - 1] ?? '') : source;
    const onLine = new Set(line.match(/[A-Za-z_]\w*/g) ?? []);
    names = captured?.filter((n) => onLine.has(n.name));
  }
  const s = suggestLabels({
    ...input,
    replay: { fileOrder, ...(cell?.traceback ? { traceback: cell.traceback } : {}), ...(names ? { names } : {}) },
  });
  const next: Instance = {
    ...instance,
    suggestedLabels: {
      library: s.library,
      crashType: s.crashType,
      rootCause: s.rootCause,
      pipelineStage: s.pipelineStage,
    },
  };
  await writeFile(path.join(staging, 'instance.json'), formatJson(next));
  return next;
}

/** Record the draft's downloads in the sources lock (their URL, file, sha256 and size). */
export async function recordDownloads(
  lockFile: string,
  id: string,
  downloads: readonly LockedDownload[],
): Promise<void> {
  if (downloads.length === 0) return;
  const { readSourcesLock, writeSourcesLock } = await import('@junobench/sources');
  const lock = await readSourcesLock(lockFile);
  await writeSourcesLock(lockFile, { ...lock, downloads: { ...(lock.downloads ?? {}), [id]: [...downloads] } });
}

/** The module → package maps of the image profiles in `dockerDir` (none when it has none). */
export async function readModuleProfiles(dockerDir: string): Promise<ModuleProfile[]> {
  const { readdir } = await import('node:fs/promises');
  const dir = path.join(dockerDir, 'profiles');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json')).sort();
  const out: ModuleProfile[] = [];
  for (const n of names) {
    const p = JSON.parse(await readFile(path.join(dir, n), 'utf8')) as {
      name?: string;
      installer?: string;
      modules?: Record<string, string>;
    };
    if (p.modules && (p.installer === 'apt' || p.installer === 'pip'))
      out.push({ name: p.name ?? n.replace(/\.json$/, ''), installer: p.installer, modules: p.modules });
  }
  return out;
}

/**
 * The saved crash a pool record names: among the notebook's saved errors the
 * one with the record's exception and message; in a notebook saved without
 * outputs (a Kaggle kernel as pulled), the code cell the record's traceback
 * points at.
 */
export async function chooseRecordedCrash(
  nb: Notebook,
  crashes: readonly MinedCrash[],
  recorded: RecordedCrash,
  file: string,
): Promise<{ crash: MinedCrash; index: number; warning?: string }> {
  const { matchRecordedCrash, locateCrashCell } = await import('@junobench/reproduce');
  const i = matchRecordedCrash(crashes, recorded);
  if (i !== null) return { crash: crashes[i]!, index: i };
  const cell = locateCrashCell(nb, recorded.traceback);
  if (cell === null) {
    throw new JunoError(
      'E_INPUT_EMPTY',
      `the notebook saved no ${recorded.ename} and no code cell holds the line the record's traceback shows: the notebook changed since the crash`,
      { location: { file }, hint: 'collect the version of the notebook that crashed, or add it by hand with --crash' },
    );
  }
  return {
    crash: {
      codeCell: cell,
      executionCount: null,
      ename: recorded.ename,
      evalue: recorded.evalue,
      traceback: [...recorded.traceback],
    },
    index: crashes.length,
    warning: `the notebook has no saved ${recorded.ename}: the crash is the pool record's, in code cell ${cell} (the cell its traceback shows), replayed in file order`,
  };
}
