// Test-only (a module of this package's test-helpers/ folder, outside src/): imported by tests and benchmarks, never
// from index.ts or library code.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Instance } from '@junobench/core';

/** A code cell for a test notebook: its source, and the saved execution count. */
export type TestCell = string | { source: string; count: number | null };

export interface TestInstanceSpec {
  id: string;
  reproduced: TestCell[];
  fixed: TestCell[];
  crash: Instance['crash'];
  order?: Instance['execution']['order'];
  requires?: string[];
  cellTimeoutSeconds?: number;
  timeoutSeconds?: number;
  data?: Record<string, string>;
  /** checks.py beside the notebooks. */
  checks?: string;
}

function notebook(cells: TestCell[]): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 4,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: cells.map((c) => {
      const cell = typeof c === 'string' ? { source: c, count: null } : c;
      return { cell_type: 'code', metadata: {}, source: cell.source, execution_count: cell.count, outputs: [] };
    }),
  });
}

/** Write a purpose-made instance folder (for tests of verification outcomes). */
export async function writeTestInstance(instancesDir: string, spec: TestInstanceSpec): Promise<string> {
  const dir = path.join(instancesDir, spec.id);
  await mkdir(path.join(dir, 'data'), { recursive: true });
  const instance: Instance = {
    id: spec.id,
    source: { platform: 'local', datasets: [] },
    crash: spec.crash,
    execution: {
      order: spec.order ?? 'file',
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
    },
  };
  await writeFile(path.join(dir, 'instance.json'), JSON.stringify(instance, null, 2));
  await writeFile(path.join(dir, 'reproduced.ipynb'), notebook(spec.reproduced));
  await writeFile(path.join(dir, 'fixed.ipynb'), notebook(spec.fixed));
  await writeFile(path.join(dir, 'original.ipynb'), notebook(spec.reproduced));
  for (const [name, content] of Object.entries(spec.data ?? {})) await writeFile(path.join(dir, 'data', name), content);
  if (spec.checks !== undefined) await writeFile(path.join(dir, 'checks.py'), spec.checks);
  return dir;
}
