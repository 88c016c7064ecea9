import path from 'node:path';
import type { ExpectedCrash, ReproductionEdit } from '@junobench/core';
import { listCodeCells, type CellOutput, type CodeCell, type Notebook } from '@junobench/notebook';
import type { CellFacts, NotebookFacts } from './analyze-cells.js';
import { generalizeSizeNumbers } from './generalize-crash.js';
import { pathsTheCrashLacks, planDataNeeds, type DataNeed } from './plan-data-needs.js';
import {
  applyLiteralRewrites,
  isUrl,
  mapDataPath,
  planLiteralRewrites,
  pointFetcherAt,
  type LiteralRewrite,
} from './plan-data-paths.js';
import {
  commentOutLines,
  moduleTheCrashLacks,
  planPackages,
  planShellLines,
  type LineEdit,
  type ModuleProfile,
  type PackagePlan,
  type ShellPlan,
} from './plan-packages.js';
import type { UnboundUse } from './plan-replay-order.js';
import type { ReproductionFindings } from './triage-draft.js';

export interface DraftInputsPlan {
  facts: NotebookFacts;
  packages: PackagePlan;
  shell: ShellPlan;
  needs: DataNeed[];
  /** The reproduced notebook with import and shell lines left out (paths are rewritten by finishDraftInputs). */
  notebook: Notebook;
  crashCell: number;
  edits: ReproductionEdit[];
}

export interface PlanDraftInputsOptions {
  /** The reproduced notebook as planned (cells kept, order, Kaggle paths already rewritten). */
  notebook: Notebook;
  crashCell: number;
  crash: { ename: string; evalue: string };
  facts: NotebookFacts;
  /** Instance-relative files data/ will hold (collected datasets, --data). */
  dataFiles: readonly string[];
  /** Top-level module → importable in the runtime; absent = not checked. */
  importable?: Readonly<Record<string, boolean>>;
  profiles?: readonly ModuleProfile[];
  /** Code cells of the notebook in the order the replay runs them (by saved counts); absent = file order. */
  runOrder?: readonly number[];
  /** A code cell's saved outputs (of the notebook as it was saved): what they show of a file is derived as shown. */
  savedOutputs?: (cell: number) => readonly CellOutput[] | undefined;
}

/**
 * Pure: plan what a reproduced notebook needs from its surroundings — the
 * modules it imports (unused missing ones left out), its shell lines
 * (installs and downloads left out), and the inputs it reads up to the crash
 * (present, to download, or to derive).
 */
export function planDraftInputs(options: PlanDraftInputsOptions): DraftInputsPlan {
  const cells = listCodeCells(options.notebook);
  const sources = cells.map((c) => c.source);
  const facts = options.facts;
  const packages = options.importable
    ? planPackages(
        facts.cells,
        options.crashCell,
        options.importable,
        options.profiles ?? [],
        sources,
        moduleTheCrashLacks(options.crash),
        options.runOrder,
      )
    : { drop: [], missing: [], edits: [] };
  const shell = planShellLines(facts.cells, options.crashCell);
  const needs = planDataNeeds(
    facts,
    options.crashCell,
    options.dataFiles,
    shell,
    options.crash,
    sources,
    options.savedOutputs,
  );
  const drops = [...packages.drop, ...shell.drop];
  const notebook = editCells(options.notebook, (ci, src) => {
    const mine = drops.filter((d) => d.cell === ci);
    return mine.length > 0 ? commentOutLines(src, mine) : src;
  });
  return {
    facts,
    packages,
    shell,
    needs,
    notebook,
    crashCell: options.crashCell,
    edits: [...packages.edits, ...shell.edits],
  };
}

export type NeedStatus = 'present' | 'downloaded' | 'synthetic' | 'missing';

export interface ResolvedNeed {
  need: DataNeed;
  status: NeedStatus;
  /** Why it is missing, or what a download failed with. */
  reason?: string;
  sha256?: string;
  bytes?: number;
  /** What the derivation took from the code (synthetic). */
  derived?: string[];
}

export interface FinishedDraftInputs {
  notebook: Notebook;
  edits: ReproductionEdit[];
  expected: ExpectedCrash;
  /** data.synthetic of instance.json, when anything was made up. */
  synthetic?: { reason: string; files: string[]; derived: string[] };
  findings: Omit<ReproductionFindings, 'unbound'>;
}

/**
 * Pure: the reproduced notebook pointed at the draft's inputs — literals of
 * paths rewritten into data/ (each edit recorded), URLs that were downloaded
 * or derived replaced by their local copy — and, when data was made up, the
 * expected crash with its data-size numbers generalised (recorded as why).
 */
export function finishDraftInputs(
  plan: DraftInputsPlan,
  resolved: readonly ResolvedNeed[],
  expected: ExpectedCrash,
  gpuCells: readonly { cell: number; text: string }[] = [],
): FinishedDraftInputs {
  const literals = plan.facts.cells.flatMap((f) => f.literals ?? []);
  const local = resolved.filter((r) => !isUrl(r.need.read));
  const chosen = new Map(local.flatMap((r) => [r.need.read, ...(r.need.aliases ?? [])].map((p) => [p, r.need.file])));
  const rewrites: LiteralRewrite[] = planLiteralRewrites(literals, [...chosen.keys()], chosen);
  for (const r of resolved) {
    if (isUrl(r.need.read) && r.status !== 'missing') rewrites.push({ from: r.need.read, to: r.need.file });
  }
  const edits: ReproductionEdit[] = [...plan.edits];
  const appliedIn = new Map<number, LiteralRewrite[]>();
  const notebook = editCells(plan.notebook, (ci, src) => {
    const { source, applied } = applyLiteralRewrites(src, rewrites);
    appliedIn.set(ci, applied);
    for (const a of applied) {
      const r = resolved.find((x) => x.need.read === a.from || (x.need.aliases ?? []).includes(a.from));
      edits.push({
        kind: isUrl(a.from) ? 'url' : 'path',
        cell: ci,
        from: a.from,
        to: a.to,
        why: isUrl(a.from)
          ? `the sandbox has no network: ${r?.status === 'synthetic' ? 'a synthetic stand-in' : r?.status === 'present' ? 'the copy given with --data' : 'the downloaded copy'} in ${a.to}`
          : 'the draft holds its inputs in data/ (its folder is the working directory)',
      });
    }
    return pointFetchers(ci, source, plan.facts, resolved, edits);
  });
  const synth = resolved.filter((r) => r.status === 'synthetic');
  let exp = renameLackedPaths(expected, resolved, appliedIn.get(plan.crashCell) ?? []);
  if (synth.length > 0) {
    const general = generalizeSizeNumbers(expected);
    if (general) {
      exp = general;
      edits.push({
        kind: 'match',
        from: expected.evalue,
        to: general.evalue,
        why: 'the data is synthetic: numbers that come from its size (shapes, counts, indices) differ from the saved run, so they match any number; the exception and the cell stay exact',
      });
    }
  }
  const missing = resolved.filter((r) => r.status === 'missing');
  const urls = [
    ...new Set([
      ...missing.filter((r) => r.need.url).map((r) => r.need.url!),
      ...plan.shell.kaggle.map((k) => `https://www.kaggle.com/datasets/${k.ref}`),
      ...plan.facts.cells.filter((f) => f.index <= plan.crashCell).flatMap((f) => f.urls.map((u) => u.url)),
    ]),
  ].filter((u) => !resolved.some((r) => r.need.url === u && r.status !== 'missing'));
  const named = withoutUrlRoots(urls);
  const derivedAll = synth.flatMap((r) => (r.derived ?? []).map((d) => `${r.need.file}: ${d}`));
  return {
    notebook,
    edits,
    expected: exp,
    ...(synth.length > 0
      ? {
          synthetic: {
            reason: `the notebook's inputs could not be had (${synth.map((r) => `${r.need.read}${r.reason ? `: ${r.reason}` : ''}`).join('; ')}): derived from what the code does with them`,
            files: synth.map((r) => r.need.file),
            derived: derivedAll,
          },
        }
      : {}),
    findings: {
      urls: named,
      missingData: missing
        .filter((r) => !r.need.underivable?.startsWith('a web request'))
        .map((r) => ({ path: r.need.file, cells: r.need.cells })),
      synthetic: synth.map((r) => r.need.file),
      derived: derivedAll,
      missingModules: plan.packages.missing,
      gpu:
        gpuCells.length > 0
          ? [...gpuCells]
          : plan.facts.cells
              .filter((f) => f.index <= plan.crashCell)
              .flatMap((f) => f.gpu.map((g) => ({ cell: f.index, text: g.text }))),
    },
  };
}

// A crash that is a missing file names the path the saved run opened; the replay opens it where the edit put it.
function renameLackedPaths(
  expected: ExpectedCrash,
  resolved: readonly ResolvedNeed[],
  applied: readonly LiteralRewrite[],
): ExpectedCrash {
  if (expected.match !== 'exact') return expected;
  let evalue = expected.evalue;
  for (const r of resolved) {
    if (!r.need.absentInCrash || !applied.some((a) => r.need.read.startsWith(a.from))) continue;
    for (const lacked of pathsTheCrashLacks(expected)) {
      if (mapDataPath(lacked) !== r.need.file || lacked === r.need.file) continue;
      for (const form of new Set([lacked, lacked.replace(/\\/g, '\\\\')]))
        evalue = evalue.split(`'${form}'`).join(`'${r.need.file}'`);
    }
  }
  return evalue === expected.evalue ? expected : { ...expected, evalue };
}

/** Pure: the notebook with each code cell's source replaced by `edit(codeIndex, source)`. */
// A library call that downloads a named dataset itself (sns.load_dataset('tips')) is pointed at the folder that holds
// the draft's copy: seaborn reads its cache there (data_home) and post-processes it as after a download.
function pointFetchers(
  ci: number,
  source: string,
  facts: NotebookFacts,
  resolved: readonly ResolvedNeed[],
  edits: ReproductionEdit[],
): string {
  let out = source;
  for (const read of facts.cells.find((f) => f.index === ci)?.reads ?? []) {
    if (!read.fetcher) continue;
    const r = resolved.find((x) => x.need.read === read.path && x.status !== 'missing');
    if (!r) continue;
    const folder = path.posix.dirname(r.need.file);
    const edit = pointFetcherAt(out, read.line, folder);
    if (!edit) continue;
    out = edit.source;
    edits.push({
      kind: 'url',
      cell: ci,
      from: edit.from,
      to: edit.to,
      why: `the sandbox has no network: ${read.fetcher} reads ${r.status === 'synthetic' ? 'a synthetic stand-in' : r.status === 'present' ? 'the copy given with --data' : 'the downloaded copy'} in ${r.need.file}, its cache, instead of downloading ${read.path}`,
    });
  }
  return out;
}

export function editCells(nb: Notebook, edit: (codeIndex: number, source: string) => string): Notebook {
  let ci = -1;
  return {
    ...nb,
    cells: nb.cells.map((cell) => {
      if (cell.cell_type !== 'code') return cell;
      ci++;
      const code = cell as CodeCell;
      const src = Array.isArray(code.source) ? code.source.join('') : code.source;
      const out = edit(ci, src);
      if (out === src) return cell;
      return { ...code, source: Array.isArray(code.source) ? out.split(/(?<=\n)/).filter((l) => l !== '') : out };
    }),
  };
}

export type { CellFacts, LineEdit, UnboundUse };

/** Pure: the URLs without those that are only the root (`…/master/`) of another listed one, which is the file read. */
export function withoutUrlRoots(urls: readonly string[]): string[] {
  return urls.filter((u) => !(u.endsWith('/') && urls.some((other) => other !== u && other.startsWith(u))));
}
