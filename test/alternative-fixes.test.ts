// The alternative correct fixes of every embedded instance (test/fixtures/alternative-fixes): another API, another
// computation, reordered code, an extra cell, other random numbers. Each must apply to its notebook and pass the
// scorer's static rules, so that what decides it is what it does: bench/checks runs them all and reports the share
// resolved (docs/checks.md).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listInstanceIds } from '@junobench/core';
import { readNotebook } from '@junobench/notebook';
import { readTaskSources, planTasks, checkRepair, type RepairKey } from '@junobench/score';
import { applyNotebookEdits, type AlternativeFixes } from '../packages/checks/test-helpers/notebook-edits.js';
import { repoRoot } from './run-cli.js';

const dir = path.join(repoRoot, 'test/fixtures/alternative-fixes');
const instances = path.join(repoRoot, 'raw/instances');

describe('alternative correct fixes of the embedded instances', () => {
  it('every embedded instance has at least two, of at least two kinds', async () => {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    expect(files.map((f) => f.replace(/\.json$/, ''))).toEqual(await listInstanceIds(instances));
    for (const f of files) {
      const fixes = JSON.parse(await readFile(path.join(dir, f), 'utf8')) as AlternativeFixes;
      expect(fixes.alternatives.length, f).toBeGreaterThanOrEqual(2);
      expect(new Set(fixes.alternatives.map((a) => a.kind)).size, f).toBeGreaterThanOrEqual(2);
    }
  });

  it(
    'each applies to its notebook, differs from the fixed one and passes the static rules',
    { timeout: 120_000 },
    async () => {
      const { sources } = await readTaskSources(instances);
      const keys = [...planTasks(sources, { kinds: ['repair'] }).keys.values()] as RepairKey[];
      for (const key of keys) {
        const fixes = JSON.parse(await readFile(path.join(dir, `${key.instance}.json`), 'utf8')) as AlternativeFixes;
        for (const a of fixes.alternatives) {
          const base = await readNotebook(path.join(instances, key.instance, `${a.from}.ipynb`));
          const nb = applyNotebookEdits(base, a.edits);
          expect(JSON.stringify(nb.cells), `${key.instance}: ${a.name}`).not.toBe(
            JSON.stringify(key.source.fixed.cells),
          );
          const check = checkRepair(key.crashing, nb, key.execution);
          expect(check.failure, `${key.instance}: ${a.name}: ${check.failure?.reason}`).toBeUndefined();
        }
      }
    },
  );
});
