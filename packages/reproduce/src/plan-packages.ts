import type { ReproductionEdit } from '@junobench/core';
import type { CellFacts } from './analyze-cells.js';
import { cellsOutsideSlice, crashSlice, upToCrash as cellsUpToCrash } from './plan-crash-slice.js';

/** Modules only a hosted platform has: never installable elsewhere. */
export const PLATFORM_MODULES = new Set(['google', 'kaggle_secrets', 'kaggle_datasets', 'kaggle_environments']);

/** An image profile's module → package map (docker/profiles/<name>.json). */
export interface ModuleProfile {
  name: string;
  installer: 'apt' | 'pip';
  modules: Readonly<Record<string, string>>;
}

export interface MissingModule {
  module: string;
  /** The installed package a missing submodule belongs to (`pandas` for `pandas.tools`): another version has it. */
  installed?: string;
  /** Code cell (reproduced) that imports it. */
  cell: number;
  usedBeforeCrash: boolean;
  debian?: string;
  pip?: string;
  profiles: string[];
  platform: boolean;
}

export interface LineEdit {
  cell: number;
  /** 1-based, inclusive. */
  line: number;
  endLine: number;
  note: string;
  /** The whole cell: every line commented at the margin (no `pass` is needed). */
  whole?: boolean;
}

export interface PackagePlan {
  /** Import statements left out of the replay: no cell up to the crash uses the module. */
  drop: LineEdit[];
  missing: MissingModule[];
  edits: ReproductionEdit[];
}

/**
 * Pure: what to do with the modules the reproduced cells import that the
 * runtime cannot import. A top-level import whose names no cell up to the
 * crash uses is left out of the replay (recorded as an edit); one that is
 * used is a missing package, with its Debian and pip names and the image
 * profiles that have it. Colab's `drive.mount(...)` alone does not count as
 * a use (the draft's data is under data/), and its lines are left out too.
 * The module whose absence is the crash itself (`crashModule`, from a saved
 * `ModuleNotFoundError`) is neither: its import stays, to fail as it did.
 */
export function planPackages(
  facts: readonly CellFacts[],
  crashCell: number,
  importable: Readonly<Record<string, boolean>>,
  profiles: readonly ModuleProfile[],
  sources: readonly string[],
  crashModule?: string,
  runOrder?: readonly number[],
): PackagePlan {
  const drop: LineEdit[] = [];
  const missing: MissingModule[] = [];
  const edits: ReproductionEdit[] = [];
  // The cells that run before the crash, which by saved counts may include some below it.
  const upToCrash = cellsUpToCrash(facts, crashCell, runOrder);
  const anyStar = upToCrash.some((f) => f.star);
  const isMissing = (module: string) => {
    const top = module.split('.')[0]!;
    const sub = importable[top] !== false && importable[module] === false;
    return (importable[top] === false || sub) && !isCrashModule(module, crashModule);
  };
  const usesOf = (alias: string, importCell: number) =>
    upToCrash.filter(
      (g) => g.loads.includes(alias) && !(g.index === importCell && onlyMounts(sources[g.index], alias)),
    );
  const leftOut = anyStar
    ? new Map<number, string>()
    : cellsTheCrashDoesNotNeed(upToCrash, crashCell, isMissing, usesOf, runOrder);
  for (const [cell, why] of leftOut) {
    const lines = (sources[cell] ?? '').split('\n').length;
    drop.push({ cell, line: 1, endLine: lines, note: 'left out: the crash does not depend on it', whole: true });
    const first = (sources[cell] ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
    edits.push({
      kind: 'import',
      cell,
      from: `code cell ${cell} (${first.trim().slice(0, 80)})`,
      why: `left out of the replay: ${why}`,
    });
  }
  for (const f of upToCrash) {
    if (leftOut.has(f.index)) continue;
    for (const imp of f.imports) {
      const top = imp.module.split('.')[0]!;
      // A submodule the installed version of its package lacks (`pandas.tools`, removed) counts as missing too.
      const sub = importable[top] !== false && importable[imp.module] === false;
      if ((importable[top] !== false && !sub) || isCrashModule(imp.module, crashModule)) continue;
      const used = anyStar || usesOf(imp.alias, f.index).some((g) => !leftOut.has(g.index));
      if (!used && imp.top) {
        drop.push({
          cell: f.index,
          line: imp.line,
          endLine: imp.endLine,
          note: `${imp.module} ${sub ? `is not in the installed ${top}` : 'is not installed here'} and no cell up to the crash uses it`,
        });
        edits.push({
          kind: 'import',
          cell: f.index,
          from: importText(imp.module, imp.alias),
          why: `left out of the replay: ${sub ? imp.module : top} cannot be imported in this runtime and no cell up to the crash uses ${imp.alias}`,
        });
        if (imp.alias === 'drive' && top === 'google') {
          for (const g of upToCrash) {
            const lines = (sources[g.index] ?? '').split('\n');
            lines.forEach((l, i) => {
              if (/^\s*drive\.mount\(.*\)\s*$/.test(l)) {
                drop.push({
                  cell: g.index,
                  line: i + 1,
                  endLine: i + 1,
                  note: "Colab's Google Drive mount: the draft's data is under data/",
                });
                edits.push({
                  kind: 'import',
                  cell: g.index,
                  from: l.trim(),
                  why: "Colab's Google Drive mount left out: the draft reads its data from data/",
                });
              }
            });
          }
        }
        continue;
      }
      const name = sub ? imp.module : top;
      if (missing.some((m) => m.module === name)) continue;
      // Another version of an installed package is not one the profiles name by module.
      const debian = sub ? undefined : profiles.find((p) => p.installer === 'apt' && p.modules[top])?.modules[top];
      const pip = sub ? undefined : profiles.find((p) => p.installer === 'pip' && p.modules[top])?.modules[top];
      missing.push({
        module: name,
        ...(sub ? { installed: top } : {}),
        cell: f.index,
        usedBeforeCrash: used,
        ...(debian ? { debian } : {}),
        ...(pip ? { pip } : {}),
        profiles: sub ? [] : profiles.filter((p) => p.modules[top]).map((p) => p.name),
        platform: PLATFORM_MODULES.has(top),
      });
    }
  }
  return { drop, missing, edits };
}

// Cells that use a module the runtime lacks while the crash does not depend on what they compute (name analysis):
// left out of the replay whole, with the cells that use what only they bind, so the module is not needed.
function cellsTheCrashDoesNotNeed(
  upToCrash: readonly CellFacts[],
  crashCell: number,
  isMissing: (module: string) => boolean,
  usesOf: (alias: string, importCell: number) => CellFacts[],
  runOrder?: readonly number[],
): Map<number, string> {
  const slice = crashSlice(upToCrash, crashCell, runOrder);
  const out = new Map<number, string>();
  for (const f of upToCrash) {
    for (const imp of f.imports) {
      if (!isMissing(imp.module)) continue;
      const users = usesOf(imp.alias, f.index).map((g) => g.index);
      if (users.length === 0 || users.every((u) => out.has(u))) continue;
      const cells = cellsOutsideSlice(upToCrash, crashCell, users, slice, runOrder);
      if (!cells) continue;
      const top = imp.module.split('.')[0]!;
      for (const [cell, why] of cells)
        if (!out.has(cell))
          out.set(
            cell,
            why ||
              `it uses ${imp.alias} (${top}, which this runtime cannot import), and the crash does not depend on what it computes (name analysis of the cells up to the crash)`,
          );
    }
  }
  return out;
}

// A cell whose only use of `alias` is `alias.mount(...)` (Colab's drive): not a use the crash needs.
/** Pure: the module a saved crash says is not there (`No module named 'x.y'` → x.y), if any. */
export function moduleTheCrashLacks(crash: { ename: string; evalue: string }): string | undefined {
  if (!/^(?:ModuleNotFoundError|ImportError)$/.test(crash.ename.split('.').pop() ?? '')) return undefined;
  return /No module named '?([A-Za-z_][\w.]*)/.exec(crash.evalue)?.[1];
}

// The import that raised the saved crash: the module it names, or one inside it.
function isCrashModule(module: string, crashModule: string | undefined): boolean {
  return crashModule !== undefined && (module === crashModule || module.startsWith(`${crashModule}.`));
}

function onlyMounts(source: string | undefined, alias: string): boolean {
  if (alias !== 'drive' || source === undefined) return false;
  const uses = source.split('\n').filter((l) => new RegExp(`\\b${alias}\\b`).test(l) && !/^\s*(from|import)\s/.test(l));
  return uses.length > 0 && uses.every((l) => /^\s*drive\.mount\(.*\)\s*$/.test(l));
}

function importText(module: string, alias: string): string {
  const last = module.split('.').pop();
  return alias === module.split('.')[0]
    ? `import ${module}`
    : last === alias
      ? `from … import ${alias} (${module})`
      : `import ${module} as ${alias}`;
}

/** Shell lines that reach the network or install things: the sandbox has no network, so they are left out. */
const FETCHING =
  /^(?:pip3?|python3?\s+-m\s+pip|conda|mamba|apt(?:-get)?|sudo|wget|curl|kaggle|git\s+clone|gdown|huggingface-cli|npm|unzip|tar\s|7z)\b/;

export interface ShellPlan {
  drop: LineEdit[];
  edits: ReproductionEdit[];
  /** Files the shell lines download: URL and the file name they save to. */
  downloads: { url: string; name: string; cell: number }[];
  /** Kaggle datasets and competitions the shell lines download (need the Kaggle collector). */
  kaggle: { ref: string; cell: number }[];
  /** Archives the shell lines extract (by file name). */
  extracts: string[];
}

/**
 * Pure: shell lines that install packages or download data are left out of
 * the replay (no network in the sandbox); what they download is listed so
 * that `add` can fetch it into data/ instead.
 */
export function planShellLines(facts: readonly CellFacts[], crashCell: number): ShellPlan {
  const out: ShellPlan = { drop: [], edits: [], downloads: [], kaggle: [], extracts: [] };
  for (const f of facts) {
    if (f.index > crashCell) continue;
    for (const sh of f.shell) {
      const cmd = sh.command.trim();
      if (!FETCHING.test(cmd)) continue;
      out.drop.push({
        cell: f.index,
        line: sh.line,
        endLine: sh.line,
        note: 'shell line left out (no network in the sandbox)',
      });
      out.edits.push({
        kind: 'shell',
        cell: f.index,
        from: `!${cmd}`,
        why: /^(?:pip|python3?\s+-m\s+pip|conda|mamba|apt)/.test(cmd)
          ? 'package installs are left out: the runtime has what it has (a missing module the crash needs is reported as needs-package)'
          : 'left out: the sandbox has no network, and what it downloads or unpacks is put under data/ by add',
      });
      const dl = /^(?:wget|curl)\b(.*)$/.exec(cmd);
      if (dl) {
        const url = /(?:https?|ftp):\/\/[^\s'"]+/.exec(dl[1]!)?.[0];
        const named = /(?:-O|--output-document|-o|--output)\s*=?\s*['"]?([^\s'"]+)/.exec(dl[1]!)?.[1];
        if (url) out.downloads.push({ url, name: named ?? baseName(url), cell: f.index });
      }
      const kg =
        /^kaggle\s+(datasets|competitions)\s+download\s+.*?(?:-d|-c|--dataset|--competition)?\s+([\w.-]+(?:\/[\w.-]+)?)/.exec(
          cmd,
        );
      if (kg) out.kaggle.push({ ref: kg[2]!, cell: f.index });
      const ex = /^(?:unzip|tar\s+\S*x\S*|7z\s+x)\s+(?:-\S+\s+)*['"]?([^\s'"]+\.(?:zip|tar|tgz|tar\.gz|gz|7z))/.exec(
        cmd,
      );
      if (ex) out.extracts.push(baseName(ex[1]!));
    }
  }
  return out;
}

export function baseName(urlOrPath: string): string {
  const clean = urlOrPath.split(/[?#]/)[0]!.replace(/\/+$/, '');
  const last = clean.split('/').pop() ?? '';
  const safe = decodeURIComponentSafe(last)
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '');
  return safe === '' ? 'download' : safe;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Pure: a cell's source with whole lines commented out (indentation kept, so a block stays valid only at top level). */
export function commentOutLines(source: string, edits: readonly LineEdit[]): string {
  const lines = source.split('\n');
  const whole = edits.find((e) => e.whole);
  if (whole)
    return lines.map((l) => (l.trim() === '' ? l : `# junobench: ${l}`)).join('\n') + `\n# junobench: (${whole.note})`;
  for (const e of edits) {
    for (let i = e.line - 1; i <= e.endLine - 1 && i < lines.length; i++) {
      if (/^\s*# junobench:/.test(lines[i]!)) continue;
      const indent = /^\s*/.exec(lines[i]!)![0];
      lines[i] = `${indent}# junobench: ${lines[i]!.trim()}  (${e.note})${indent.length > 0 ? `\n${indent}pass` : ''}`;
    }
  }
  return lines.join('\n');
}
