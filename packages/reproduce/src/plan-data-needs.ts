import { compareCodePoints } from '@junobench/core';
import type { CellFacts, CellRead, NotebookFacts } from './analyze-cells.js';
import {
  deriveTable,
  namesTheCrashLacks,
  type DeriveContext,
  type DerivedTable,
  type TableFormat,
} from './derive-table.js';
import { isUrl, mapDataPath } from './plan-data-paths.js';
import { readSavedTable } from './saved-frames.js';
import type { CellOutput } from '@junobench/notebook';
import { baseName, type ShellPlan } from './plan-packages.js';

/** Synthetic stand-ins other than tables: a few lines of text, small images, a folder of them, numeric arrays. */
export type DerivedFile =
  | { type: 'table'; table: DerivedTable }
  | { type: 'array'; rows: number; columns: number; format: 'npy' | 'text' | 'raw'; delimiter: string }
  | { type: 'text'; lines: number; words?: string[] }
  | { type: 'image'; width: number; height: number }
  | { type: 'images'; classes: string[]; perClass: number; extension: string }
  /** torchvision's MNIST-like datasets: `<folder>/<dataset>/raw/` with the four IDX files, fewer images. */
  | { type: 'idx'; dataset: string; train: number; test: number };

export interface DataNeed {
  /** The path or URL as the code builds it. */
  read: string;
  /** Other ways the code names the same file (`train.csv` in one cell, `C:\\data\\train.csv` in another). */
  aliases?: string[];
  /** Where it lives in the draft (instance-relative, under data/). */
  file: string;
  /** Code cells (reproduced) that read it. */
  cells: number[];
  /** Download it from here when the network is reachable. */
  url?: string;
  /** How to make it up when it cannot be had. */
  derive?: DerivedFile;
  /** Why it cannot be derived, when it cannot. */
  underivable?: string;
  /** Already in data/ (a collected dataset, --data, or a file of the same name found there). */
  present: boolean;
  /** The saved crash is this file's absence (a misspelt or moved file): it is neither derived nor looked for. */
  absentInCrash?: boolean;
}

const TABLE_KINDS = new Set(['csv', 'excel', 'json']);
const FORMAT_OF: Readonly<Record<string, TableFormat>> = { csv: 'csv', excel: 'excel', json: 'json' };
const TEXT_EXT = /\.(txt|text|md|log|css|html?|ya?ml|cfg|ini|sql|names|rst)$/i;
const IMAGE_EXT = /\.(jpe?g|png|bmp|gif|tiff?)$/i;
const TABLE_EXT = /\.(csv|tsv|txt|data|dat)$/i;

/**
 * Pure: the inputs the reproduced cells read up to the crash, each with its
 * place under data/ and how to get it: present in `dataFiles`, a download,
 * or a derivation from what the code does with it. Files the notebook writes
 * itself before reading them are not inputs.
 */
export function planDataNeeds(
  facts: NotebookFacts,
  crashCell: number,
  dataFiles: readonly string[],
  shell: ShellPlan,
  crash: { ename: string; evalue: string },
  sources: readonly string[] = [],
  savedOutputs?: (cell: number) => readonly CellOutput[] | undefined,
): DataNeed[] {
  const files = new Set(dataFiles);
  const byBase = new Map<string, string[]>();
  for (const f of dataFiles) byBase.set(baseName(f), [...(byBase.get(baseName(f)) ?? []), f]);
  const written = new Set<string>();
  const needs = new Map<string, DataNeed>();
  const shellFiles = new Map(shell.downloads.map((d) => [d.name, d.url]));
  const dateLayout = planDateLayout(facts.cells.flatMap((f) => f.literals ?? []));
  const dates = facts.cells.filter((f) => f.index <= crashCell).flatMap((f) => f.dates ?? []);
  const crashSource = sources[crashCell];
  // A column the crash misses that no code names came from the data: one table had it and another did not.
  const named = new Set(Object.values(facts.tables).flatMap((t) => Object.keys(t.columns)));
  let fromData = namesTheCrashLacks(crash).filter((n) => !named.has(n));
  const tableReads = facts.cells.flatMap((f) => f.reads.filter((r) => TABLE_KINDS.has(r.kind)));
  if (tableReads.length < 2) fromData = [];
  const lacked = pathsTheCrashLacks(crash).map((p) => mapDataPath(p));
  for (const f of facts.cells) {
    if (f.index > crashCell) break;
    for (const r of f.reads) {
      if (written.has(r.path) || r.kind === 'model') continue;
      if (f.index === crashCell && !isUrl(r.path) && lacked.includes(mapDataPath(r.path))) {
        addNeed(needs, {
          read: r.path,
          file: mapDataPath(r.path)!,
          cells: [f.index],
          present: false,
          absentInCrash: true,
          underivable: 'the saved crash is its absence: left missing, so that the replay fails as the saved run did',
        });
        continue;
      }
      const url = isUrl(r.path) ? r.path : undefined;
      if (url && /^(?:url|download)$/.test(r.kind) && !TABLE_EXT.test(url.split('?')[0]!)) {
        // requests.get / urlopen of a page or API: a download only if a later read uses its bytes; left to triage.
        addNeed(needs, {
          read: r.path,
          file: `data/${baseName(url)}`,
          cells: [f.index],
          url,
          present: false,
          underivable: 'a web request, not a file read',
        });
        continue;
      }
      const mapped = url ? `data/${baseName(url)}` : mapDataPath(r.path);
      if (mapped === null) continue;
      let file: string = mapped;
      let present =
        r.kind === 'idx-dataset'
          ? [...files].some((x) => x.startsWith(`${idxFolder(file, r.dataset!)}/`))
          : files.has(file) || [...files].some((x) => x.startsWith(`${file.replace(/\/$/, '')}/`));
      if (!present && !url && r.kind !== 'idx-dataset') {
        const same = byBase.get(baseName(r.path)) ?? [];
        if (same.length === 1) {
          file = same[0]!;
          present = true;
        }
      }
      const fromShell = shellFiles.get(baseName(r.path));
      const need: DataNeed = {
        read: r.path,
        file,
        cells: [f.index],
        present,
        ...(url ? { url } : fromShell && !present ? { url: fromShell } : {}),
      };
      if (!present) {
        const extra = TABLE_KINDS.has(r.kind) && r.id === tableReads[0]?.id ? fromData : [];
        const displays = facts.tables[r.id]?.displays ?? [];
        const saved = savedOutputs && displays.length > 0 ? readSavedTable(displays, savedOutputs) : undefined;
        Object.assign(
          need,
          planDerivation(
            {
              dateLayout,
              extraColumns: extra,
              dates,
              ...(crashSource !== undefined ? { crashSource } : {}),
              ...(saved ? { saved } : {}),
            },
            r,
            facts.tables[r.id],
            { ...crash, cell: crashCell },
          ),
        );
      }
      addNeed(needs, need);
    }
    for (const w of f.writes) written.add(w);
  }
  linkNameFiles(needs, facts);
  return [...needs.values()].sort((a, b) => compareCodePoints(a.file, b.file));
}

// A table read with names= taken from a text file (a UCI `.names`, a header kept apart): that file lists the derived
// table's columns, and the table itself has no header line.
function linkNameFiles(needs: Map<string, DataNeed>, facts: NotebookFacts): void {
  const reads = new Map(facts.cells.flatMap((f) => f.reads.map((r) => [r.path, r] as const)));
  for (const need of needs.values()) {
    const from = reads.get(need.read)?.options?.namesFrom;
    if (typeof from !== 'string' || need.derive?.type !== 'table') continue;
    const names = need.derive.table.columns.map((c) => c.name);
    const target = [...needs.values()].find((n) => n.read === from || n.file === mapDataPath(from));
    if (!target || target.present) continue;
    target.derive = { type: 'text', lines: 1, words: names };
    delete target.underivable;
  }
}

function addNeed(needs: Map<string, DataNeed>, need: DataNeed): void {
  const had = needs.get(need.file);
  if (had) {
    for (const c of need.cells) if (!had.cells.includes(c)) had.cells.push(c);
    if (need.read !== had.read && !(had.aliases ?? []).includes(need.read))
      had.aliases = [...(had.aliases ?? []), need.read];
    // Two reads of one file: the derivation that knows more columns wins; with as many, one that reads the file as
    // indexed (a later read with index_col: the labels the code looks up go through that index).
    if (need.derive?.type === 'table' && had.derive?.type === 'table') {
      const [a, b] = [need.derive.table, had.derive.table];
      if (a.columns.length > b.columns.length || (a.columns.length === b.columns.length && a.index && !b.index))
        had.derive = need.derive;
    }
    return;
  }
  needs.set(need.file, need);
}

function planDerivation(
  context: Omit<DeriveContext, 'format'>,
  read: CellRead,
  usage: NotebookFacts['tables'][string] | undefined,
  crash: { ename: string; evalue: string; cell: number },
): Pick<DataNeed, 'derive' | 'underivable'> {
  const { kind, path: p, options } = read;
  const name = p.split(/[?#]/)[0]!;
  if (TABLE_KINDS.has(kind)) {
    // JSON read as lines or as records; Excel as its first sheet: the options say which.
    const format = FORMAT_OF[kind]!;
    const table = deriveTable(usage, options, crash, { ...context, format });
    return { derive: { type: 'table', table: { ...table, format } } };
  }
  if (kind === 'array') {
    const ext = /\.(\w+)$/.exec(name)?.[1]?.toLowerCase();
    if (ext === 'mat' || ext === 'npz' || ext === 'h5' || ext === 'hdf5')
      return { underivable: `an array file of type .${ext} cannot be derived from the code` };
    const delimiter = typeof options?.delimiter === 'string' ? options.delimiter : ext === 'csv' ? ',' : ' ';
    const format = ext === 'npy' || /\.load$/.test(read.call) ? 'npy' : /fromfile$/.test(read.call) ? 'raw' : 'text';
    return { derive: { type: 'array', rows: 200, columns: 4, format, delimiter } };
  }
  // As many training and test images as the real one (code splits it by those counts: random_split(d, [50000, 10000])),
  // of noise, labels 0–9: the shapes, types and sizes a notebook's model meets.
  if (kind === 'idx-dataset' && read.dataset)
    return { derive: { type: 'idx', dataset: read.dataset, train: 60_000, test: 10_000 } };
  if (kind === 'image' || (kind === 'file' && IMAGE_EXT.test(name)))
    return { derive: { type: 'image', width: 64, height: 64 } };
  if (kind === 'file' && TEXT_EXT.test(name)) return { derive: { type: 'text', lines: 50 } };
  if (kind === 'file' && /\.csv$/i.test(name)) return { derive: { type: 'text', lines: 50 } };
  if (kind === 'folder') {
    const ext = /\*\.(\w+)/.exec(p)?.[1] ?? 'jpg';
    if (IMAGE_EXT.test(`.${ext}`))
      return { derive: { type: 'images', classes: ['class_a', 'class_b'], perClass: 4, extension: ext } };
  }
  const ext = /\.(\w+)$/.exec(name)?.[1];
  return {
    underivable: `${kind === 'file' ? 'a file' : `a ${kind === 'csv' ? 'table' : kind} file`}${ext ? ` of type .${ext}` : ''} cannot be derived from the code`,
  };
}

/** Where torchvision keeps a dataset's IDX files under its root folder (instance-relative). */
export function idxFolder(root: string, dataset: string): string {
  return `${root.replace(/\/+$/, '')}/${dataset}/raw`;
}

/**
 * Pure: the paths a saved crash says are not there (`FileNotFoundError: [Errno
 * 2] No such file or directory: 'x'`, pandas' `File x does not exist`), as
 * the crashing code named them.
 */
export function pathsTheCrashLacks(crash: { ename: string; evalue: string }): string[] {
  const ename = crash.ename.split('.').pop() ?? '';
  if (!/^(?:FileNotFoundError|OSError|IOError|NotADirectoryError)$/.test(ename)) return [];
  const out: string[] = [];
  for (const m of crash.evalue.matchAll(/No such file or directory: (?:b?'([^'\n]+)'|"([^"\n]+)")/g))
    out.push(m[1] ?? m[2]!);
  for (const m of crash.evalue.matchAll(/File b?'?([^'\n]+?)'? does not exist/g)) out.push(m[1]!);
  // A path written with backslashes is shown doubled in the message (its repr).
  return [...new Set(out.map((p) => p.replace(/\\\\/g, '\\')))];
}

/** The cells that read each need, for a person: `data/x.csv (cells 2, 5)`. */
export function describeNeeds(needs: readonly DataNeed[]): string {
  return needs.map((n) => `${n.file} (code cell${n.cells.length === 1 ? '' : 's'} ${n.cells.join(', ')})`).join(', ');
}

export function readsOf(facts: readonly CellFacts[]): string[] {
  return facts.flatMap((f) => f.reads.map((r) => r.path));
}

/** Pure: the date layout the code parses (a strptime or to_datetime format among its literals), for derived dates. */
export function planDateLayout(literals: readonly string[]): string {
  for (const l of literals) {
    const m = /%Y-%m-%d(?:([T ])%H:%M(:%S)?)?/.exec(l);
    if (m) return `YYYY-MM-DD${m[1] ? `${m[1]}HH:MM${m[2] ? ':SS' : ''}` : ''}`;
  }
  return 'YYYY-MM-DD';
}
