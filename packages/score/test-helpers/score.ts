// Test-only helpers: literal notebooks and purpose-made instance folders.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Instance, Labels } from '@junobench/core';
import type { Notebook } from '@junobench/notebook';

/** A cell: code (a string or with its saved execution count) or markdown. */
export type TestCell = string | { source: string; count: number | null } | { markdown: string };

export function makeNotebook(cells: readonly TestCell[]): Notebook {
  return {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: cells.map((c) => {
      if (typeof c === 'object' && 'markdown' in c) return { cell_type: 'markdown', metadata: {}, source: c.markdown };
      const cell = typeof c === 'string' ? { source: c, count: null } : c;
      return { cell_type: 'code', metadata: {}, source: cell.source, execution_count: cell.count, outputs: [] };
    }),
  };
}

export interface TestInstanceSpec {
  id: string;
  reproduced: TestCell[];
  fixed: TestCell[];
  /** Default: the reproduced cells, with an error output on the crash cell. */
  original?: Notebook;
  crash: Instance['crash'];
  order?: Instance['execution']['order'];
  cells?: number[];
  requires?: string[];
  cellTimeoutSeconds?: number;
  timeoutSeconds?: number;
  data?: Record<string, string>;
  labels?: Partial<Labels>;
  /** checks.py beside the notebooks. */
  checks?: string;
}

/** Write a purpose-made instance folder; returns its path. */
export async function writeTestInstance(instancesDir: string, spec: TestInstanceSpec): Promise<string> {
  const dir = path.join(instancesDir, spec.id);
  await mkdir(path.join(dir, 'data'), { recursive: true });
  const instance: Instance = {
    id: spec.id,
    source: { platform: 'local', datasets: [] },
    crash: spec.crash,
    execution: {
      order: spec.order ?? 'file',
      ...(spec.cells && spec.cells.length > 0 ? { cells: spec.cells as [number, ...number[]] } : {}),
      ...(spec.cellTimeoutSeconds ? { cellTimeoutSeconds: spec.cellTimeoutSeconds } : {}),
      ...(spec.timeoutSeconds ? { timeoutSeconds: spec.timeoutSeconds } : {}),
    },
    requires: spec.requires ?? [],
    labels: {
      library: 'None',
      crashType: 'value error',
      rootCause: 'implementation error',
      pipelineStage: 'data preparation',
      diagnosis: 'test instance',
      ...spec.labels,
    },
  };
  await writeFile(path.join(dir, 'instance.json'), JSON.stringify(instance, null, 2));
  await writeFile(path.join(dir, 'reproduced.ipynb'), JSON.stringify(makeNotebook(spec.reproduced)));
  await writeFile(path.join(dir, 'fixed.ipynb'), JSON.stringify(makeNotebook(spec.fixed)));
  const original = spec.original ?? makeNotebook(spec.reproduced);
  await writeFile(path.join(dir, 'original.ipynb'), JSON.stringify(original));
  for (const [name, content] of Object.entries(spec.data ?? {})) await writeFile(path.join(dir, 'data', name), content);
  if (spec.checks !== undefined) await writeFile(path.join(dir, 'checks.py'), spec.checks);
  return dir;
}
