import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { compileValidatorSources, writeCompiledValidators } from './compiled-validators.js';
import { COMPILED_VALIDATORS_ROOT, SCHEMAS_DIR, compiledValidatorsDir, newAjv, validatorsKey } from './validate.js';

const REPO = path.resolve(SCHEMAS_DIR, '..');
const requireHere = createRequire(import.meta.url);
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-validators-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('compiled validators', () => {
  it('accept and reject exactly what ajv compiling the schemas at run time does, with the same errors', async () => {
    const sources = compileValidatorSources();
    const files = (await readdir(SCHEMAS_DIR)).filter((f) => f.endsWith('.schema.json'));
    expect([...sources.keys()].sort()).toEqual(files.map((f) => f.replace('.schema.json', '')).sort());
    // Real documents of the repository, and values every schema has an opinion on.
    const documents: Record<string, unknown[]> = {
      instance: [JSON.parse(await readFile(path.join(REPO, 'raw/instances/pandas_1/instance.json'), 'utf8'))],
    };
    // A format (date-time), checked by ajv-formats' code.
    const entry = { seq: 1, tool: 'run_cell', arguments: {}, ok: true, summary: 'ran', ms: 5 };
    documents['trajectory-entry'] = [
      { ...entry, at: '2026-12-07T10:00:00Z' },
      { ...entry, at: 'yesterday' },
    ];
    const broken = structuredClone(documents.instance![0]) as Record<string, unknown>;
    delete broken.crash;
    (broken as { labels?: unknown }).labels = { rootCause: 'keras' };
    documents.instance!.push(broken);
    const ajv = newAjv();
    // Where the code's own require calls (ajv's run-time helpers) resolve as they do for the build's folder.
    await mkdir(COMPILED_VALIDATORS_ROOT, { recursive: true });
    const dir = await mkdtemp(path.join(COMPILED_VALIDATORS_ROOT, '.test-'));
    try {
      for (const [name, code] of sources) {
        const file = path.join(dir, `${name}.cjs`);
        await writeFile(file, code);
        const standalone = requireHere(file) as ValidateFunction;
        const atRunTime = ajv.getSchema(`https://junobench.dev/schemas/${name}.schema.json`)!;
        for (const value of [{}, null, [], 'x', ...(documents[name] ?? [])]) {
          expect({ name, valid: standalone(value), errors: standalone.errors ?? null }).toEqual({
            name,
            valid: atRunTime(value),
            errors: atRunTime.errors ?? null,
          });
        }
      }
      const valid = (name: string, i: number) =>
        (requireHere(path.join(dir, `${name}.cjs`)) as ValidateFunction)(documents[name]![i]);
      expect([
        valid('instance', 0),
        valid('instance', 1),
        valid('trajectory-entry', 0),
        valid('trajectory-entry', 1),
      ]).toEqual([true, false, true, false]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('are written once per key, under a key that changes with any schema, and older keys are removed', async () => {
    const schemas = path.join(tmp, 'schemas');
    const root = path.join(tmp, 'dist');
    await cp(SCHEMAS_DIR, schemas, { recursive: true });
    const first = await writeCompiledValidators({ schemasDir: schemas, root });
    expect(first.dir).toBe(compiledValidatorsDir(validatorsKey(schemas), root));
    expect(first.written).toBe((await readdir(schemas)).filter((f) => f.endsWith('.schema.json')).length);
    expect((await writeCompiledValidators({ schemasDir: schemas, root })).written).toBe(0);

    const file = path.join(schemas, 'task.schema.json');
    const schema = JSON.parse(await readFile(file, 'utf8')) as { description?: string };
    await writeFile(file, JSON.stringify({ ...schema, description: `${schema.description ?? ''} (changed)` }));
    const second = await writeCompiledValidators({ schemasDir: schemas, root });
    expect(second.dir).not.toBe(first.dir);
    expect(second.written).toBeGreaterThan(0);
    expect(await readdir(root)).toEqual([path.basename(second.dir)]);
  });
});
