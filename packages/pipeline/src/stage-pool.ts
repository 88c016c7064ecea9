import path from 'node:path';
import { readdir } from 'node:fs/promises';
import { JunoError, compareCodePoints } from '@junobench/core';
import type { Stage } from './run-build.js';

export interface PoolStageOptions {
  poolDir: string;
  criteria: string;
  outDir: string;
  perLibrary?: number;
  seed?: string;
}

export const POOL_FILES = {
  pool: 'pool.jsonl',
  rejects: 'pool.rejects.jsonl',
  kept: 'kept.jsonl',
  funnel: 'funnel.json',
  libcause: 'libcause.jsonl',
  libcauseReport: 'libcause.json',
  sample: 'sample.jsonl',
  resampleReport: 'resample.json',
} as const;

const SHEET = /\.(xlsx|csv|jsonl)$/i;

/** import → filter → libcause → resample over raw/pool into curated/pool/. */
export function createPoolStage(o: PoolStageOptions): Stage {
  const out = (f: keyof typeof POOL_FILES) => path.join(o.outDir, POOL_FILES[f]);
  const perLibrary = o.perLibrary ?? 5;
  const seed = o.seed ?? 'junobench';
  return {
    name: 'pool',
    description: 'import the raw crash pool, filter it, estimate library causes, resample per library',
    inputs: [o.poolDir, o.criteria],
    outputs: Object.keys(POOL_FILES).map((k) => out(k as keyof typeof POOL_FILES)),
    params: { perLibrary, seed },
    async run(io) {
      const { filterPool, importPool, libcausePool, resamplePool } = await import('@junobench/pool');
      // Sheets and JSONL files of the pool folder, in a stable order (a folder
      // given to `pool import` would be read as a folder of notebooks).
      const entries = await readdir(io.abs(o.poolDir)).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') throw e;
        throw new JunoError('E_INPUT_NOT_FOUND', `the crash pool folder ${o.poolDir} is missing or not a folder`, {
          location: { file: io.abs(o.poolDir) },
          hint: 'pass --raw a raw/ folder laid out like the embedded one (pool/, criteria/, instances/, annotations/), or put the crash sheets in its pool/',
          cause: e,
        });
      });
      const names = entries.filter((n) => SHEET.test(n)).sort(compareCodePoints);
      if (names.length === 0) {
        throw new JunoError('E_INPUT_NOT_FOUND', `no crash sheets (.xlsx, .csv, .jsonl) in ${o.poolDir}`, {
          hint: 'put the empirical-study or benchmark-description sheets there',
        });
      }
      const imported = await importPool(
        names.map((n) => path.join(io.abs(o.poolDir), n)),
        {
          output: io.abs(out('pool')),
          rejects: io.abs(out('rejects')),
          onProgress: io.onProgress,
        },
      );
      const funnel = await filterPool({
        input: io.abs(out('pool')),
        criteria: io.abs(o.criteria),
        output: io.abs(out('kept')),
        report: io.abs(out('funnel')),
        onProgress: io.onProgress,
      });
      const lib = await libcausePool({
        input: io.abs(out('kept')),
        output: io.abs(out('libcause')),
        eval: true,
        report: io.abs(out('libcauseReport')),
        onProgress: io.onProgress,
      });
      const sample = await resamplePool({
        input: io.abs(out('libcause')),
        output: io.abs(out('sample')),
        perLibrary,
        seed,
        report: io.abs(out('resampleReport')),
        onProgress: io.onProgress,
      });
      const t = imported.total;
      const acc = lib.evaluation
        ? `, library estimate accuracy ${lib.evaluation.accuracy.toFixed(3)} (${lib.evaluation.hits}/${lib.evaluation.total})`
        : '';
      return {
        summary: `${t.read} read, ${t.imported} imported, ${t.rejected} rejected; ${funnel.kept}/${funnel.input} kept by the criteria${acc}; ${sample.selected} sampled (≤${perLibrary} per library)`,
      };
    },
  };
}
