import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  copyInstanceTree,
  listInstanceIds,
  readInstance,
  readJsonFile,
  readJsonlAll,
  validateOrThrow,
  writeFileAtomic,
  writeJsonAtomic,
  type Benchmark,
  type BenchmarkEntry,
  type FinalLabels,
  type Instance,
  type Labels,
  type VerificationReport,
} from '@junobench/core';
import type { Stage } from './run-build.js';

export interface BenchmarkStageOptions {
  instancesDir: string;
  verification: string;
  /** final-labels.jsonl from the labels stage (one FinalLabels line per instance). */
  finalLabels: string;
  outDir: string;
  name?: string;
  version?: string;
}

/**
 * Assemble the curated benchmark: benchmark.json/.csv (one row per included
 * instance: source, datasets and licences, crash, final labels, diagnosis,
 * verification status) and a copy of each included instance with its final
 * labels under instances/.
 */
export function createBenchmarkStage(o: BenchmarkStageOptions): Stage {
  const files = {
    json: path.join(o.outDir, 'benchmark.json'),
    csv: path.join(o.outDir, 'benchmark.csv'),
    instances: path.join(o.outDir, 'instances'),
  };
  return {
    name: 'benchmark',
    description: 'assemble benchmark.json/.csv and the curated instances',
    inputs: [o.instancesDir, o.verification, o.finalLabels],
    outputs: [files.json, files.csv, files.instances],
    params: { name: o.name ?? 'JunoBench', version: o.version ?? null },
    async run(io) {
      const { assembleBenchmark, formatBenchmarkCsv, stripBenchmarkCredentials } = await import('@junobench/benchmark');
      const verification = await readJsonFile<VerificationReport>(io.abs(o.verification), { schema: 'verification' });
      const finalLabels: Record<string, Labels> = {};
      for (const f of await readJsonlAll<FinalLabels>(io.abs(o.finalLabels), { schema: 'final-labels' }))
        finalLabels[f.instance] = f.labels;
      const ids = await listInstanceIds(io.abs(o.instancesDir));
      const instances: Instance[] = [];
      for (const id of ids) instances.push(await readInstance(path.join(io.abs(o.instancesDir), id)));
      const assembled = assembleBenchmark(instances, verification, finalLabels, {
        name: o.name ?? 'JunoBench',
        ...(o.version ? { version: o.version } : {}),
      });
      const { benchmark, warnings } = stripBenchmarkCredentials(assembled, (id) =>
        path.join(o.instancesDir, id, 'instance.json'),
      );
      validateOrThrow<Benchmark>('benchmark', benchmark, { file: files.json });
      await writeCuratedInstances(io.abs(o.instancesDir), io.abs(files.instances), benchmark.instances);
      await writeJsonAtomic(io.abs(files.json), benchmark);
      await writeFileAtomic(io.abs(files.csv), formatBenchmarkCsv(benchmark));
      const drafts = instances.filter((i) => i.status === 'draft').map((i) => i.id);
      const excluded = ids.length - benchmark.instances.length - drafts.length;
      const left = [
        ...(excluded > 0 ? [`${excluded} not verified`] : []),
        ...(drafts.length > 0 ? [`${drafts.length} draft${drafts.length > 1 ? 's' : ''}: ${drafts.join(', ')}`] : []),
      ];
      return {
        summary: `${benchmark.instances.length} instances in the benchmark${left.length > 0 ? ` (left out: ${left.join('; ')})` : ''} → ${files.json}, ${files.csv}`,
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    },
  };
}

// Copy included instances (notebooks, data, instance.json with the final labels)
// into a temporary folder and swap it in whole, so curated/instances is never half-written.
async function writeCuratedInstances(
  srcDir: string,
  destDir: string,
  entries: readonly BenchmarkEntry[],
): Promise<void> {
  await mkdir(path.dirname(destDir), { recursive: true });
  // mkdir, not mkdtemp: mkdtemp makes the folder private (0700), and it is renamed into the published place.
  const tmp = path.join(path.dirname(destDir), `.instances-${process.pid}-${randomUUID()}`);
  await mkdir(tmp);
  try {
    for (const e of entries) {
      const dest = path.join(tmp, e.id);
      await copyInstanceTree(path.join(srcDir, e.id), dest);
      const instance = JSON.parse(await readFile(path.join(dest, 'instance.json'), 'utf8')) as Instance;
      instance.labels = e.labels;
      instance.source = e.source;
      await writeJsonAtomic(path.join(dest, 'instance.json'), instance, { schema: 'instance' });
    }
    const old = `${destDir}.old-${process.pid}`;
    await rename(destDir, old).catch(() => undefined);
    await rename(tmp, destDir);
    await rm(old, { recursive: true, force: true });
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}
