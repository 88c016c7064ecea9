import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashTree, hashValue, type ProgressListener } from '@junobench/core';
import type { Runtime } from '@junobench/runtime';
import { runStages, type BuildReport, type Stage, type StageEvent } from './run-build.js';
import { createVerifyStage } from './stage-verify.js';
import { createLabelsStage } from './stage-labels.js';
import { createBenchmarkStage } from './stage-benchmark.js';
import { createStatsStage } from './stage-stats.js';
import { createDataStage } from './stage-data.js';
import { createPoolStage } from './stage-pool.js';
import { createImageStage } from './stage-image.js';
import { createReportStage } from './stage-report.js';
import { createChecksStage } from './stage-checks.js';
import type Docker from 'dockerode';

export interface BuildOptions {
  /** Project root: raw/ and curated/ are resolved from here. */
  root: string;
  rawDir?: string;
  curatedDir?: string;
  /** Creates the runtime for verification, once, only if the verify stage needs it. */
  createRuntime: () => Promise<Runtime>;
  /** Verify in containers: the image stage builds (or finds) the benchmark image first. */
  container?: { docker: () => Promise<Docker>; profile?: string };
  jobs?: number;
  /** Per-instance verification cache. */
  cacheDir?: string;
  force?: boolean;
  only?: readonly string[];
  /** --min-kappa: the agreement gate for this build only, over raw/release.json's minKappa. */
  minKappa?: number;
  /** SOURCE_DATE_EPOCH: the build time the report shows. */
  sourceDateEpoch?: number;
  onStage?: (event: StageEvent) => void;
  onProgress?: ProgressListener;
  onWarning?: (message: string) => void;
}

/** The toolchain's own code and schemas: a change to them re-runs every stage. */
const PACKAGES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function computeCodeFingerprint(): Promise<string> {
  const src = await hashTree(PACKAGES_DIR, {
    ignore: (rel) =>
      rel.includes('node_modules') ||
      rel.endsWith('.test.ts') ||
      rel.includes('/test-helpers/') ||
      rel.includes('/test-fixtures/') ||
      rel.includes('/dist/'),
  });
  const schemas = await hashTree(path.resolve(PACKAGES_DIR, '../schemas'));
  return hashValue({ src, schemas });
}

/** The stages of `junobench build`, in order, with their paths relative to the root. */
export function planStages(
  options: Pick<
    BuildOptions,
    'rawDir' | 'curatedDir' | 'createRuntime' | 'jobs' | 'cacheDir' | 'container' | 'minKappa' | 'sourceDateEpoch'
  >,
): Stage[] {
  const raw = options.rawDir ?? 'raw';
  const out = options.curatedDir ?? 'curated';
  const instancesDir = path.join(raw, 'instances');
  let runtime: Promise<Runtime> | undefined;
  const getRuntime = () => (runtime ??= options.createRuntime());
  const cacheDir = options.cacheDir ?? '.junobench-cache';
  return [
    createPoolStage({
      poolDir: path.join(raw, 'pool'),
      criteria: path.join(raw, 'criteria', 'junobench.json'),
      outDir: path.join(out, 'pool'),
    }),
    createDataStage({ instancesDir, output: path.join(out, 'subsample.json'), cacheDir }),
    ...(options.container
      ? [
          createImageStage({
            instancesDir,
            record: path.join(out, 'image.json'),
            docker: options.container.docker,
            ...(options.container.profile ? { profile: options.container.profile } : {}),
          }),
        ]
      : []),
    createVerifyStage({
      instancesDir,
      output: path.join(out, 'verification.json'),
      cacheDir,
      ...(options.jobs ? { jobs: options.jobs } : {}),
      runtime: getRuntime,
    }),
    createChecksStage({
      instancesDir,
      record: path.join(raw, 'checks-report.json'),
      output: path.join(out, 'checks.json'),
    }),
    createLabelsStage({
      annotationsDir: path.join(raw, 'annotations'),
      instancesDir,
      outDir: path.join(out, 'labels'),
      metadataFile: path.join(raw, 'release.json'),
      ...(options.minKappa !== undefined ? { minKappa: options.minKappa } : {}),
    }),
    createBenchmarkStage({
      instancesDir,
      verification: path.join(out, 'verification.json'),
      finalLabels: path.join(out, 'labels', 'final-labels.jsonl'),
      outDir: out,
    }),
    createStatsStage({ benchmark: path.join(out, 'benchmark.json'), outDir: path.join(out, 'stats') }),
    createReportStage({
      curatedDir: out,
      rawDir: raw,
      outDir: path.join(out, 'report'),
      ...(options.sourceDateEpoch !== undefined ? { sourceDateEpoch: options.sourceDateEpoch } : {}),
    }),
  ];
}

/** `junobench build`: the whole pipeline on raw/ into curated/, skipping what is up to date. */
export async function runBuild(options: BuildOptions): Promise<BuildReport> {
  let created: Runtime | undefined;
  const createRuntime = async () => (created = await options.createRuntime());
  const stages = planStages({ ...options, createRuntime });
  try {
    return await runStages(stages, {
      root: options.root,
      lockFile: path.join(options.curatedDir ?? 'curated', '.build-lock.json'),
      codeFingerprint: await computeCodeFingerprint(),
      ...(options.force ? { force: true } : {}),
      ...(options.only ? { only: options.only } : {}),
      ...(options.onStage ? { onStage: options.onStage } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
  } finally {
    await created?.close();
  }
}
