// Test-only (a module of this package's test-helpers/ folder, outside src/): imported by tests, never by library
// code.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A pandas cast that fails on a missing value; `checks` is its checks.py (none when undefined). */
export async function writeTinyInstance(instancesDir: string, id: string, checks?: string): Promise<string> {
  const dir = path.join(instancesDir, id);
  await mkdir(path.join(dir, 'data'), { recursive: true });
  const base = ['import pandas as pd', 's = pd.Series([1.0, None, 3.0])'];
  const cell = (middle: string) => `n = len(s)\n${middle}\nhalf = n / 2`;
  const notebook = (cells: string[]) =>
    JSON.stringify({
      nbformat: 4,
      nbformat_minor: 4,
      metadata: {},
      cells: cells.map((source) => ({ cell_type: 'code', metadata: {}, source, execution_count: null, outputs: [] })),
    });
  const instance = {
    id,
    source: { platform: 'local', datasets: [] },
    crash: {
      ename: 'IntCastingNaNError',
      evalue: 'Cannot convert non-finite values (NA or inf) to integer',
      match: 'exact',
      cell: 2,
    },
    execution: { order: 'file', cellTimeoutSeconds: 30, timeoutSeconds: 120 },
    requires: ['pandas'],
    labels: {
      library: 'pandas',
      crashType: 'value error',
      rootCause: 'data confusion',
      pipelineStage: 'data preparation',
      diagnosis: 'a cast of missing values to int',
    },
  };
  await writeFile(path.join(dir, 'instance.json'), JSON.stringify(instance, null, 2));
  await writeFile(
    path.join(dir, 'reproduced.ipynb'),
    notebook([...base, cell('s = s.astype(int)'), "print('total', s.sum())"]),
  );
  await writeFile(
    path.join(dir, 'fixed.ipynb'),
    notebook([...base, cell('s = s.fillna(0).astype(int)'), "print('total', s.sum())"]),
  );
  await writeFile(path.join(dir, 'original.ipynb'), notebook([...base, cell('s = s.astype(int)')]));
  if (checks !== undefined) await writeFile(path.join(dir, 'checks.py'), checks);
  return dir;
}
