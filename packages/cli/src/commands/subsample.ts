import { rm } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  JunoError,
  checkOutputPaths,
  formatBytes,
  readJsonFile,
  validateInstanceId,
  type RowFilter,
  type SubsampleSpec,
  type SubsampleStep,
} from '@junobench/core';
import type { SubsampleDataReport, SubsampleInstanceResult } from '@junobench/subsample';
import type { CliContext } from '../context.js';
import { addRuntimeOptions, createRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';
import { formatDuration, formatTable, parsePositiveInt, parsePositiveNumber, printable } from './format.js';

// @junobench/subsample and verify are imported inside the action (CONTRIBUTING.md: imports in
// the CLI). The default the help shows is @junobench/subsample's, copied: its literal type keeps them equal.
const DEFAULT_CACHE_DIR: (typeof import('@junobench/subsample'))['DEFAULT_CACHE_DIR'] = '.junobench-cache';

export interface SubsampleFlags extends RuntimeFlags {
  instances: string;
  spec?: string;
  method?: 'table' | 'images' | 'archive' | 'synthetic-table';
  path?: string;
  rows?: number;
  fraction?: number;
  stratify?: string;
  keep: string[];
  missingPattern: boolean;
  perClass?: number;
  classDepth?: number;
  maxSide?: number;
  reencode?: boolean;
  quality?: number;
  index: string[];
  sidecars: string[];
  depth?: number;
  reason?: string;
  license?: string;
  seed?: string;
  source?: string;
  cacheDir?: string;
  dryRun?: boolean;
  check?: boolean;
  json?: string;
}

const collect = (v: string, prev: string[]) => [...prev, v];

export function registerSubsampleCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('subsample')
    .description(
      "Shrink an instance's input data without losing its crash: reduce it in a staging copy, re-verify there, and replace data/ only when still verified.",
    )
    .argument('<instance-id>', 'the instance folder name under --instances')
    .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
    .option(
      '--spec <file>',
      'subsampling spec (JSON, schemas/subsample-spec.schema.json); default: the one saved in instance.json',
    )
    .addOption(
      new Option('--method <method>', 'one-step spec from flags instead of --spec').choices([
        'table',
        'images',
        'archive',
        'synthetic-table',
      ]),
    )
    .option('--path <path>', 'the file or folder under data/ the method applies to')
    .option('--rows <n>', 'table: rows to keep', parsePositiveInt)
    .option('--fraction <f>', 'table/images/archive: share to keep (0 < f ≤ 1)', parseFraction)
    .option('--stratify <column>', 'table: keep the value shares of this column (every value keeps a row)')
    .option(
      '--keep <filter>',
      'table: rows always kept, "col=value", "col~regex" or "col:missing" (repeatable); images/archive: a path always kept',
      collect,
      [],
    )
    .option('--no-missing-pattern', 'table: do not stratify by the missing-value pattern')
    .option('--per-class <k>', 'images: images kept per class folder', parsePositiveInt)
    .option(
      '--class-depth <n>',
      'images: folder levels that name the class (default: the whole folder)',
      parseNonNegativeInt,
    )
    .option(
      '--max-side <px>',
      'images: shrink larger images (re-encoded, format/channels/bit depth kept)',
      parsePositiveInt,
    )
    .option('--reencode', 'images: re-encode every kept image with fixed settings')
    .option('--quality <q>', 'images: JPEG/WebP quality when re-encoding (default 90)', parsePositiveInt)
    .option(
      '--index <file>',
      'images: CSV/TXT file or folder listing images, filtered to the kept ones (repeatable)',
      collect,
      [],
    )
    .option(
      '--sidecars <folder>',
      'images: folder of per-image files (annotations, labels, masks), filtered (repeatable)',
      collect,
      [],
    )
    .option('--depth <n>', 'archive: folder level that groups entries (default 1)', parsePositiveInt)
    .option('--reason <text>', 'synthetic-table: why the data cannot be shared')
    .option('--license <name>', 'synthetic-table: the licence that forbids sharing it')
    .option('--seed <seed>', "seed (default: the spec's, else 0)")
    .option('--source <dir>', "the full data (default: the spec's generator, else the instance's current data/)")
    .option('--cache-dir <dir>', `generated sources and replaced full data (default: ${DEFAULT_CACHE_DIR})`)
    .option('--dry-run', 'reduce into staging and report sizes, without verifying or changing anything')
    .option('--check', 'redo data/ from the saved spec and full data and compare it byte for byte (no kernel)')
    .option('--json <file>', 'write the report as JSON');
  addRuntimeOptions(cmd);
  cmd.addHelpText(
    'after',
    '\nExit status: 0 applied (or dry run / check ok), 1 refused because the crash would not survive (data/ unchanged) or check mismatch, 2 bad input.\n' +
      'Examples:\n' +
      '  junobench subsample pandas_3                      # redo the spec saved in instance.json\n' +
      '  junobench subsample pandas_3 --method table --path sales.csv --rows 3000 --stratify region --keep units:missing --seed 3\n' +
      '  junobench subsample cv_1 --method images --path train --per-class 20 --max-side 256 --index train.csv\n' +
      '  junobench subsample pandas_3 --check',
  );
  cmd.action(async (id: string, flags: SubsampleFlags) => {
    // An id names a folder directly under --instances: `../x` must not reach outside it.
    validateInstanceId(id);
    const instanceDir = path.resolve(ctx.cwd, flags.instances, id);
    const cacheDir = path.resolve(ctx.cwd, flags.cacheDir ?? ctx.env.JUNOBENCH_CACHE_DIR ?? DEFAULT_CACHE_DIR);
    const source = flags.source ? path.resolve(ctx.cwd, flags.source) : undefined;
    if (flags.json)
      await checkOutputPaths({
        inputs: flags.spec ? [path.resolve(ctx.cwd, flags.spec)] : [],
        trees: [
          { path: path.resolve(ctx.cwd, flags.instances), what: '--instances' },
          ...(source ? [{ path: source, what: '--source' }] : []),
        ],
        outputs: [{ path: path.resolve(ctx.cwd, flags.json), flag: '--json' }],
      });
    const progress = ctx.progress('subsample');
    if (flags.check) {
      const { planSubsampleCheckReport, regenerateInstanceData, writeSubsampleCheckReport } =
        await import('@junobench/subsample');
      try {
        const r = await regenerateInstanceData(instanceDir, { cacheDir, sourceDir: source, onProgress: progress });
        // Only the hash matters here: drop the regenerated copy (a temporary folder).
        await rm(path.dirname(r.outDir), { recursive: true, force: true });
        ctx.out(formatDataReport(id, r.report));
        ctx.out(
          r.matches === undefined
            ? `${id}: regenerated ${r.report.result.sha256.slice(0, 12)} (instance.json records no result to compare)`
            : r.matches
              ? `${id}: data/ reproduces byte for byte (${r.report.result.sha256.slice(0, 12)})`
              : `${id}: regenerated data differs: ${r.report.result.sha256.slice(0, 12)} ≠ recorded ${r.expected!.sha256.slice(0, 12)}`,
        );
        if (flags.json)
          await writeSubsampleCheckReport(path.resolve(ctx.cwd, flags.json), planSubsampleCheckReport(id, r));
        ctx.exitCode = r.matches === false ? 1 : 0;
      } finally {
        progress.done();
      }
      return;
    }
    let spec = await specFromFlags(flags, ctx);
    if (spec && flags.method && !flags.source) {
      // The full data is where the saved spec found it (a generator, a dataset), not the already reduced data/:
      // reducing that again would lose the link to the source and give fewer rows than asked.
      const saved = (
        await readJsonFile<{ data?: { subsample?: { source?: SubsampleSpec['source'] } } }>(
          path.join(instanceDir, 'instance.json'),
        ).catch(() => undefined)
      )?.data?.subsample?.source;
      if (saved && saved.kind !== 'local') spec = { ...spec, source: saved };
    }
    const { subsampleInstance } = await import('@junobench/subsample');
    const { verifyInstanceDir } = await import('@junobench/verify');
    const runtime = flags.dryRun ? undefined : await createRuntimeFromFlags(flags, ctx);
    let result: SubsampleInstanceResult;
    try {
      result = await subsampleInstance({
        instanceDir,
        spec,
        sourceDir: source,
        cacheDir,
        dryRun: flags.dryRun,
        onProgress: progress,
        verify: (dir) => {
          if (!runtime) throw new JunoError('E_INTERNAL', 'no runtime for verification');
          return verifyInstanceDir(dir, { runtime });
        },
      });
    } finally {
      progress.done();
      await runtime?.close();
    }
    ctx.out(formatSubsampleResult(result));
    if (flags.json) {
      const { writeSubsampleReport } = await import('@junobench/subsample');
      await writeSubsampleReport(path.resolve(ctx.cwd, flags.json), result);
      ctx.out(`report written to ${flags.json}`);
    }
    ctx.exitCode = result.status === 'refused' ? 1 : 0;
  });
}

/** The spec to apply: --spec file, or a one-step spec from flags, or undefined (the one saved in instance.json). */
export async function specFromFlags(
  flags: SubsampleFlags,
  ctx: Pick<CliContext, 'cwd'>,
): Promise<SubsampleSpec | undefined> {
  const { parseSubsampleSpec } = await import('@junobench/subsample');
  if (flags.spec && flags.method) {
    throw new JunoError('E_USAGE', 'give either --spec or --method, not both');
  }
  if (flags.spec) {
    const file = path.resolve(ctx.cwd, flags.spec);
    const value = await readJsonFile<Record<string, unknown>>(file);
    if (flags.seed !== undefined) value.seed = seedValue(flags.seed);
    return parseSubsampleSpec(value, { file });
  }
  if (!flags.method) {
    if (flags.seed !== undefined)
      throw new JunoError('E_USAGE', '--seed needs --spec or --method', {
        hint: 'a saved spec is redone with its own seed',
      });
    return undefined;
  }
  if (!flags.path) throw new JunoError('E_USAGE', `--method ${flags.method} needs --path <file or folder under data/>`);
  let step: SubsampleStep;
  switch (flags.method) {
    case 'table':
      step = {
        path: flags.path,
        method: 'table',
        parameters: {
          ...(flags.rows !== undefined ? { rows: flags.rows } : {}),
          ...(flags.fraction !== undefined ? { fraction: flags.fraction } : {}),
          ...(flags.stratify ? { stratifyBy: flags.stratify } : {}),
          ...(flags.keep.length ? { keep: flags.keep.map(parseRowFilter) } : {}),
          ...(flags.missingPattern === false ? { preserveMissing: false } : {}),
        },
      };
      break;
    case 'images':
      step = {
        path: flags.path,
        method: 'images',
        parameters: {
          ...(flags.perClass !== undefined ? { perClass: flags.perClass } : {}),
          ...(flags.fraction !== undefined ? { fraction: flags.fraction } : {}),
          ...(flags.classDepth !== undefined ? { classDepth: flags.classDepth } : {}),
          ...(flags.maxSide !== undefined ? { maxSide: flags.maxSide } : {}),
          ...(flags.reencode ? { reencode: true } : {}),
          ...(flags.quality !== undefined ? { quality: flags.quality } : {}),
          ...(flags.keep.length ? { keep: flags.keep } : {}),
          ...(flags.index.length ? { indexFiles: flags.index } : {}),
          ...(flags.sidecars.length ? { sidecarFolders: flags.sidecars } : {}),
        },
      };
      break;
    case 'archive':
      if (flags.fraction === undefined) throw new JunoError('E_USAGE', '--method archive needs --fraction <f>');
      step = {
        path: flags.path,
        method: 'archive',
        parameters: {
          fraction: flags.fraction,
          ...(flags.depth !== undefined ? { depth: flags.depth } : {}),
          ...(flags.keep.length ? { keep: flags.keep } : {}),
        },
      };
      break;
    case 'synthetic-table':
      if (!flags.reason || !flags.license)
        throw new JunoError('E_USAGE', '--method synthetic-table needs --reason <text> and --license <name>');
      step = {
        path: flags.path,
        method: 'synthetic-table',
        parameters: {
          reason: flags.reason,
          license: flags.license,
          ...(flags.rows !== undefined ? { rows: flags.rows } : {}),
        },
      };
      break;
  }
  return parseSubsampleSpec(
    { seed: seedValue(flags.seed ?? '0'), source: { kind: flags.source ? 'dataset' : 'local' }, steps: [step] },
    { field: '--method' },
  );
}

function seedValue(s: string): string | number {
  return /^-?\d{1,15}$/.test(s) ? Number(s) : s;
}

/** `col=value`, `col~regex`, `col:missing`, `col:present`. */
export function parseRowFilter(text: string): RowFilter {
  let m = /^(.+?):(missing|present)$/.exec(text);
  if (m) return { column: m[1]!, isMissing: m[2] === 'missing' };
  m = /^(.+?)~(.*)$/.exec(text);
  if (m) return { column: m[1]!, matches: m[2]! };
  m = /^(.+?)=(.*)$/.exec(text);
  if (m) return { column: m[1]!, equals: m[2]! };
  throw new JunoError('E_USAGE', `--keep "${text}" is not a row filter`, {
    hint: 'use "column=value", "column~regex" or "column:missing"',
  });
}

function parseFraction(value: string): number {
  const n = parsePositiveNumber(value);
  if (n > 1) throw new InvalidArgumentError(`expected a share between 0 and 1, got "${value}"`);
  return n;
}

function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a whole number ≥ 0, got "${value}"`);
  return n;
}

export function formatDataReport(id: string, r: SubsampleDataReport): string {
  const rows = r.steps.map((s) => {
    const detail = s.table
      ? `rows ${s.table.rowsBefore} → ${s.table.rowsAfter} (${s.table.keptByFilter} kept by filter, ${s.table.strata} strata)`
      : s.images
        ? `images ${s.images.imagesBefore} → ${s.images.imagesAfter} in ${s.images.classes} classes, ${s.images.resized} resized`
        : s.archive
          ? `files ${s.archive.filesBefore} → ${s.archive.filesAfter} in ${s.archive.groups} folders`
          : s.synthetic
            ? `synthetic: ${s.synthetic.rowsAfter} rows, ${s.synthetic.columns.length} columns`
            : '';
    return [s.path, s.method, `${formatBytes(s.before.bytes)} → ${formatBytes(s.after.bytes)}`, detail];
  });
  const lines = [formatTable(['path', 'method', 'size', 'detail'], rows)];
  const ratio = r.before.bytes === 0 ? 1 : r.after.bytes / r.before.bytes;
  lines.push(
    `${id}: ${formatBytes(r.before.bytes)} → ${formatBytes(r.after.bytes)} (${(ratio * 100).toFixed(1)} %), files kept ${r.filesKept}, dropped ${r.filesDropped}, ${formatDuration(r.durationMs)}`,
  );
  for (const c of r.corrupt) lines.push(`  corrupt image: ${c.path}: ${printable(c.reason)}`);
  return lines.join('\n');
}

export function formatSubsampleResult(r: SubsampleInstanceResult): string {
  const lines = [formatDataReport(r.instance, r.data)];
  if (r.status === 'applied') {
    lines.push(
      `${r.instance}: applied — the reduced instance is verified; data/ replaced and the spec saved in instance.json`,
    );
    if (r.originalDataKeptAt) lines.push(`  the full data was moved to ${r.originalDataKeptAt}`);
  } else if (r.status === 'refused') {
    lines.push(`${r.instance}: refused — ${printable(r.reason ?? 'the reduced instance is not verified')}`);
  } else {
    lines.push(`${r.instance}: dry run — nothing changed`);
  }
  return lines.join('\n');
}
