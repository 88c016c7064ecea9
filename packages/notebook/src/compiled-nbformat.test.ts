import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import AjvDraft04, { type ValidateFunction } from 'ajv-draft-04';
import { LATEST_MINOR, NBFORMAT_DIR, compileNbformatSources } from './compiled-nbformat.js';

const REPO = path.resolve(fileURLToPath(import.meta.url), '../../../..');
const requireHere = createRequire(import.meta.url);

describe('compiled nbformat validators', () => {
  it('accept and reject exactly what ajv compiling the schemas at run time does, with the same errors', async () => {
    const notebook = JSON.parse(await readFile(path.join(REPO, 'raw/instances/pandas_1/reproduced.ipynb'), 'utf8')) as {
      cells: Record<string, unknown>[];
    };
    const noSource = structuredClone(notebook);
    delete noSource.cells[0]!.source;
    const values = [notebook, noSource, { ...notebook, cells: 'none' }, {}, null];
    // Where their require calls (ajv's run-time helpers) resolve as they do for the build's folder.
    const root = path.resolve(fileURLToPath(import.meta.url), '../../dist');
    await mkdir(root, { recursive: true });
    const dir = await mkdtemp(path.join(root, '.test-'));
    try {
      const sources = compileNbformatSources();
      expect([...sources.keys()]).toEqual(Array.from({ length: LATEST_MINOR + 1 }, (_, m) => `v4.${m}.cjs`));
      const verdicts: boolean[] = [];
      for (const [file, code] of sources) {
        await writeFile(path.join(dir, file), code);
        const standalone = requireHere(path.join(dir, file)) as ValidateFunction;
        const schema = JSON.parse(
          await readFile(path.join(NBFORMAT_DIR, `nbformat.${file.replace('.cjs', '')}.schema.json`), 'utf8'),
        ) as object;
        const atRunTime = new AjvDraft04.default({ allErrors: false, strict: false }).compile(schema);
        for (const value of values) {
          const valid = standalone(value);
          verdicts.push(valid);
          expect({ file, valid, errors: standalone.errors ?? null }).toEqual({
            file,
            valid: atRunTime(value),
            errors: atRunTime.errors ?? null,
          });
        }
      }
      // The real notebook (4.5, with cell ids) is valid under 4.5; the broken ones under none.
      expect(verdicts.slice(-values.length)).toEqual([true, false, false, false, false]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
