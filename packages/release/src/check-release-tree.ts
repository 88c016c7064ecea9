import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { parseNotebook } from '@junobench/notebook';
import {
  checkSchema,
  compareCodePoints,
  formatIssue,
  hashFile,
  isJunoError,
  readInstanceTree,
  type Benchmark,
  type Instance,
  type Labels,
  type ReleaseManifest,
  type ReleaseVerifyProblem,
  type TreeFile,
  type VerificationReport,
} from '@junobench/core';
import { checkCroissant } from './check-croissant.js';
import { RELEASE_FILES } from './plan-release.js';
import { parseSha256Sums } from './sha256sums.js';

export type ReleaseProblemCode = ReleaseProblem['code'];

/**
 * One thing that does not hold, named: the file (and the instance) it is about (the shape `release verify --json`
 * writes).
 */
export type ReleaseProblem = ReleaseVerifyProblem;

export interface ReleaseTreeCheck {
  manifest: ReleaseManifest | null;
  problems: ReleaseProblem[];
  /** Files whose bytes were hashed. */
  filesChecked: number;
  bytesChecked: number;
  /** Every file of the folder with its size and sha256 (for the Croissant checks beside the archive). */
  files: Map<string, { bytes: number; sha256: string }>;
  /** CSV texts by path (benchmark.csv). */
  csvText: Map<string, string>;
}

const LABEL_KEYS = ['library', 'crashType', 'rootCause', 'pipelineStage', 'diagnosis'] as const;
const CSV_LABELS: Record<string, (typeof LABEL_KEYS)[number]> = {
  library: 'library',
  crash_type: 'crashType',
  root_cause: 'rootCause',
  pipeline_stage: 'pipelineStage',
  diagnosis: 'diagnosis',
};

/** Which schema each JSON file of a release follows. */
function schemaFor(rel: string): string | undefined {
  if (rel === 'benchmark.json') return 'benchmark';
  if (rel === 'verification.json') return 'verification';
  if (rel === 'checks.json') return 'checks-report';
  if (rel === 'labels/agreement.json') return 'agreement-report';
  if (rel === 'stats/stats.json') return 'stats';
  if (rel === 'image/image.json') return 'image-record';
  if (/^image\/[^/]+\.lock\.json$/.test(rel)) return 'image-lock';
  if (/^instances\/[^/]+\/instance\.json$/.test(rel)) return 'instance';
  return undefined;
}

/**
 * Check an extracted release folder (the archive's top folder) without
 * running anything: SHA256SUMS, then manifest.json (every file present with
 * its size and sha256, nothing unlisted), every file against its schema
 * (JSON formats, nbformat for notebooks, final-labels lines), the Croissant
 * checks, and that labels and outcomes agree across manifest.json,
 * instance.json, benchmark.json, benchmark.csv and verification.json.
 * Every problem is returned, each naming its file (and instance).
 */
export async function checkReleaseTree(top: string): Promise<ReleaseTreeCheck> {
  const problems: ReleaseProblem[] = [];
  const add = (p: ReleaseProblem) => problems.push(p);

  let tree: TreeFile[];
  try {
    tree = await readInstanceTree(top);
  } catch (e) {
    if (!isJunoError(e)) throw e;
    const rel = path.relative(top, e.location?.file ?? top) || '.';
    add({ code: 'unsafe-file', path: rel, message: e.message });
    return { manifest: null, problems, filesChecked: 0, bytesChecked: 0, files: new Map(), csvText: new Map() };
  }
  const onDisk = new Map<string, TreeFile>(tree.map((f) => [f.rel, f]));
  const hashes = new Map<string, string>();
  let bytesChecked = 0;
  const hashOf = async (rel: string): Promise<string> => {
    let h = hashes.get(rel);
    if (!h) {
      h = await hashFile(onDisk.get(rel)!.abs);
      hashes.set(rel, h);
      bytesChecked += onDisk.get(rel)!.size;
    }
    return h;
  };
  const text = async (rel: string): Promise<string | undefined> =>
    onDisk.has(rel) ? readFile(onDisk.get(rel)!.abs, 'utf8') : undefined;

  // 1. SHA256SUMS: what `sha256sum -c` would say, and files it does not list.
  const sumsText = await text(RELEASE_FILES.sums);
  if (sumsText === undefined) add({ code: 'missing-file', path: RELEASE_FILES.sums, message: 'SHA256SUMS is missing' });
  else {
    try {
      const lines = parseSha256Sums(sumsText);
      const listed = new Set<string>();
      for (const l of lines) {
        listed.add(l.path);
        if (!onDisk.has(l.path))
          add({
            code: 'missing-file',
            path: l.path,
            ...inst(l.path),
            message: `${l.path} is listed in SHA256SUMS but missing`,
          });
        else if ((await hashOf(l.path)) !== l.sha256)
          add({
            code: 'checksum-mismatch',
            path: l.path,
            ...inst(l.path),
            message: `${l.path}: sha256 differs from SHA256SUMS (FAILED for sha256sum -c)`,
          });
      }
      for (const rel of onDisk.keys()) {
        if (rel !== RELEASE_FILES.sums && !listed.has(rel))
          add({ code: 'unlisted-file', path: rel, ...inst(rel), message: `${rel} is not listed in SHA256SUMS` });
      }
    } catch (e) {
      if (!isJunoError(e)) throw e;
      add({ code: 'schema', path: RELEASE_FILES.sums, message: e.describe() });
    }
  }

  // 2. manifest.json: every file with its size and sha256; nothing else.
  const manifestText = await text(RELEASE_FILES.manifest);
  let manifest: ReleaseManifest | null = null;
  if (manifestText === undefined)
    add({ code: 'missing-file', path: RELEASE_FILES.manifest, message: 'manifest.json is missing' });
  else {
    const value = parseJson(manifestText, RELEASE_FILES.manifest, add);
    if (value !== undefined) {
      const issues = checkSchema('release-manifest', value);
      if (issues.length > 0)
        add({
          code: 'schema',
          path: RELEASE_FILES.manifest,
          message: `not a valid release manifest: ${issues.slice(0, 3).map(formatIssue).join('; ')}`,
        });
      else manifest = value as ReleaseManifest;
    }
  }
  if (manifest) {
    const listed = new Set<string>([RELEASE_FILES.manifest, RELEASE_FILES.sums]);
    const entries = [
      ...manifest.instances.flatMap((i) => i.files.map((f) => ({ f, id: i.id }))),
      ...manifest.files.map((f) => ({ f, id: undefined })),
    ];
    for (const { f, id } of entries) {
      listed.add(f.path);
      const where = { path: f.path, ...(id ? { instance: id } : inst(f.path)) };
      const disk = onDisk.get(f.path);
      if (!disk) {
        add({ code: 'missing-file', ...where, message: `${f.path} is in manifest.json but missing from the release` });
        continue;
      }
      if (disk.size !== f.bytes)
        add({
          code: 'size-mismatch',
          ...where,
          message: `${f.path} has ${disk.size} bytes, manifest.json says ${f.bytes}`,
        });
      if ((await hashOf(f.path)) !== f.sha256)
        add({ code: 'checksum-mismatch', ...where, message: `${f.path}: sha256 differs from manifest.json` });
    }
    for (const rel of onDisk.keys())
      if (!listed.has(rel))
        add({ code: 'unlisted-file', path: rel, ...inst(rel), message: `${rel} is not listed in manifest.json` });
    const all = entries.map((e) => e.f);
    const t = manifest.totals;
    if (
      t.files !== all.length ||
      t.bytes !== all.reduce((s, f) => s + f.bytes, 0) ||
      t.instances !== manifest.instances.length
    ) {
      add({
        code: 'manifest',
        path: RELEASE_FILES.manifest,
        message: 'totals do not add up to the files and instances it lists',
      });
    }
    const folder = path.basename(top);
    if (/^junobench-/.test(folder) && folder !== `junobench-${manifest.version}`) {
      add({
        code: 'layout',
        path: '.',
        message: `the folder is ${folder} but manifest.json is release ${manifest.version}`,
      });
    }
  }

  // 3. Every file against its format.
  const parsed = new Map<string, unknown>();
  for (const rel of [...onDisk.keys()].sort(compareCodePoints)) {
    const schema = schemaFor(rel);
    if (schema) {
      const value = parseJson((await text(rel))!, rel, add);
      if (value === undefined) continue;
      parsed.set(rel, value);
      const issues = checkSchema(schema, value);
      if (issues.length > 0)
        add({
          code: 'schema',
          path: rel,
          ...inst(rel),
          message: `${rel} is not a valid ${schema}: ${issues.slice(0, 3).map(formatIssue).join('; ')}`,
        });
    } else if (rel.endsWith('.ipynb')) {
      try {
        parseNotebook((await text(rel))!, rel);
      } catch (e) {
        if (!isJunoError(e)) throw e;
        add({ code: 'schema', path: rel, ...inst(rel), message: `${rel} is not a valid notebook: ${e.message}` });
      }
    } else if (rel === 'labels/final-labels.jsonl') {
      ((await text(rel)) ?? '').split('\n').forEach((line, i) => {
        if (!line.trim()) return;
        let v: unknown;
        try {
          v = JSON.parse(line);
        } catch {
          add({ code: 'schema', path: rel, message: `${rel} line ${i + 1} is not JSON` });
          return;
        }
        const issues = checkSchema('final-labels', v);
        if (issues.length > 0)
          add({ code: 'schema', path: rel, message: `${rel} line ${i + 1}: ${formatIssue(issues[0]!)}` });
      });
    }
  }

  // 4. Croissant: schema and what a schema cannot say.
  const files = new Map<string, { bytes: number; sha256: string }>();
  for (const [rel, f] of onDisk) files.set(rel, { bytes: f.size, sha256: await hashOf(rel) });
  const csv = await text('benchmark.csv');
  const csvText = new Map<string, string>(csv === undefined ? [] : [['benchmark.csv', csv]]);
  const croissantText = await text(RELEASE_FILES.croissant);
  if (croissantText === undefined)
    add({ code: 'missing-file', path: RELEASE_FILES.croissant, message: 'croissant.json is missing' });
  else {
    const doc = parseJson(croissantText, RELEASE_FILES.croissant, add);
    if (doc !== undefined) {
      const issues = checkCroissant(doc, { files, csvText, ...(manifest ? { version: manifest.version } : {}) });
      for (const i of issues)
        add({ code: 'croissant', path: RELEASE_FILES.croissant, message: `croissant.json: ${i.at}: ${i.message}` });
    }
  }

  // 5. Labels and outcomes agree everywhere they are written.
  if (manifest) crossCheck(manifest, parsed, csv, add);

  return { manifest, problems, filesChecked: hashes.size, bytesChecked, files, csvText };
}

function crossCheck(
  manifest: ReleaseManifest,
  parsed: Map<string, unknown>,
  csv: string | undefined,
  add: (p: ReleaseProblem) => void,
): void {
  const benchmark = parsed.get('benchmark.json') as Benchmark | undefined;
  const verification = parsed.get('verification.json') as VerificationReport | undefined;
  const bench = new Map((benchmark?.instances ?? []).map((e) => [e.id, e]));
  const ver = new Map((verification?.instances ?? []).map((v) => [v.instance, v]));
  const ids = manifest.instances.map((i) => i.id);
  if (benchmark) {
    for (const id of bench.keys())
      if (!ids.includes(id))
        add({
          code: 'instance-mismatch',
          path: 'benchmark.json',
          instance: id,
          message: `${id} is in benchmark.json but not in manifest.json`,
        });
  }
  const compareLabels = (id: string, where: string, labels: Partial<Labels>, expected: Labels) => {
    for (const k of LABEL_KEYS) {
      if ((labels[k] ?? '') !== (expected[k] ?? '')) {
        add({
          code: 'label-mismatch',
          path: where,
          instance: id,
          message: `${id}: label ${k} is "${labels[k] ?? ''}" in ${where} but "${expected[k] ?? ''}" in manifest.json`,
        });
      }
    }
  };
  for (const m of manifest.instances) {
    const instFile = `instances/${m.id}/instance.json`;
    const inst = parsed.get(instFile) as Instance | undefined;
    if (inst) {
      if (inst.id !== m.id)
        add({ code: 'instance-mismatch', path: instFile, instance: m.id, message: `${instFile} has id "${inst.id}"` });
      compareLabels(m.id, instFile, inst.labels ?? {}, m.labels);
    }
    const e = bench.get(m.id);
    if (benchmark && !e)
      add({
        code: 'instance-mismatch',
        path: 'benchmark.json',
        instance: m.id,
        message: `${m.id} is in manifest.json but not in benchmark.json`,
      });
    if (e) {
      compareLabels(m.id, 'benchmark.json', e.labels, m.labels);
      const status = e.verification.status === 'skipped' ? 'skipped-env' : e.verification.status;
      if (status !== m.status)
        add({
          code: 'verification-mismatch',
          path: 'benchmark.json',
          instance: m.id,
          message: `${m.id} is ${e.verification.status} in benchmark.json but ${m.status} in manifest.json`,
        });
    }
    const v = ver.get(m.id);
    if (verification && !v)
      add({
        code: 'verification-mismatch',
        path: 'verification.json',
        instance: m.id,
        message: `${m.id} has no result in verification.json`,
      });
    if (v) {
      if (v.reproduced.outcome !== m.verification.reproduced || v.fixed.outcome !== m.verification.fixed) {
        add({
          code: 'verification-mismatch',
          path: 'verification.json',
          instance: m.id,
          message: `${m.id}: verification.json says ${v.reproduced.outcome}/${v.fixed.outcome}, manifest.json ${m.verification.reproduced}/${m.verification.fixed}`,
        });
      }
      const expected = m.status === 'verified' ? 'verified' : 'skipped';
      if (v.status !== expected)
        add({
          code: 'verification-mismatch',
          path: 'verification.json',
          instance: m.id,
          message: `${m.id} is ${v.status} in verification.json but ${m.status} in manifest.json`,
        });
    }
  }
  for (const d of manifest.deprecated) {
    if (ids.includes(d.id))
      add({
        code: 'instance-mismatch',
        path: RELEASE_FILES.manifest,
        instance: d.id,
        message: `${d.id} is deprecated but still released`,
      });
  }
  if (csv !== undefined) {
    let rows: Record<string, string>[] = [];
    try {
      rows = parse(csv, { columns: true, bom: true }) as Record<string, string>[];
    } catch (e) {
      add({
        code: 'schema',
        path: 'benchmark.csv',
        message: `benchmark.csv is not valid CSV: ${(e as Error).message}`,
      });
    }
    const byId = new Map(manifest.instances.map((i) => [i.id, i]));
    const seen = new Set<string>();
    for (const row of rows) {
      const id = row.id ?? '';
      seen.add(id);
      const m = byId.get(id);
      if (!m) {
        add({
          code: 'instance-mismatch',
          path: 'benchmark.csv',
          instance: id,
          message: `${id} is in benchmark.csv but not in manifest.json`,
        });
        continue;
      }
      const labels: Partial<Labels> = {};
      for (const [col, key] of Object.entries(CSV_LABELS))
        if (col in row) (labels as Record<string, string>)[key] = unescapeCell(row[col]!);
      for (const k of Object.keys(labels) as (typeof LABEL_KEYS)[number][]) {
        if ((labels[k] ?? '') !== (m.labels[k] ?? '')) {
          add({
            code: 'label-mismatch',
            path: 'benchmark.csv',
            instance: id,
            message: `${id}: label ${k} is "${labels[k]}" in benchmark.csv but "${m.labels[k] ?? ''}" in manifest.json`,
          });
        }
      }
    }
    if (rows.length > 0)
      for (const id of byId.keys())
        if (!seen.has(id))
          add({
            code: 'instance-mismatch',
            path: 'benchmark.csv',
            instance: id,
            message: `${id} is in manifest.json but not in benchmark.csv`,
          });
  }
}

// A cell escaped against spreadsheet formula injection starts with a quote
// before = + - @ (or a tab/CR); the value it stands for is the rest.
function unescapeCell(v: string): string {
  return /^'[=+\-@\t\r]/.test(v) ? v.slice(1) : v;
}

function parseJson(textValue: string, rel: string, add: (p: ReleaseProblem) => void): unknown {
  try {
    return JSON.parse(textValue);
  } catch (e) {
    add({ code: 'schema', path: rel, ...inst(rel), message: `${rel} is not valid JSON: ${(e as Error).message}` });
    return undefined;
  }
}

function inst(rel: string): { instance?: string } {
  const m = /^instances\/([^/]+)\//.exec(rel);
  return m ? { instance: m[1]! } : {};
}
