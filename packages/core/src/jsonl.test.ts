import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JunoError } from './errors.js';
import { readJsonFile, readJsonl, readJsonlAll, writeJsonl } from './jsonl.js';
import { MAX_LINE_CHARS } from './lines.js';

const tmp = () => mkdtemp(path.join(os.tmpdir(), 'jb-jsonl-'));

describe('JSONL', () => {
  it('round-trips values and skips blank lines', async () => {
    const d = await tmp();
    const f = path.join(d, 'a.jsonl');
    expect(await writeJsonl(f, [{ a: 1 }, { b: 'x' }])).toBe(2);
    await writeFile(f, `${await readFile(f, 'utf8')}\n\n`);
    expect(await readJsonlAll(f)).toEqual([{ a: 1 }, { b: 'x' }]);
  });

  it('names the file and line of a broken line', async () => {
    const d = await tmp();
    const f = path.join(d, 'bad.jsonl');
    await writeFile(f, '{"a":1}\n{"a":\n');
    const e = await readJsonlAll(f).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(JunoError);
    expect((e as JunoError).code).toBe('E_INPUT_FORMAT');
    expect((e as JunoError).describe()).toContain(`${f}, line 2`);
  });

  it('validates lines against a schema when asked', async () => {
    const d = await tmp();
    const f = path.join(d, 'ann.jsonl');
    await writeFile(
      f,
      '{"instance":"a","annotator":"x","library":"numpy","crashType":"key error","rootCause":"API misuse"}\n',
    );
    const e = (await readJsonlAll(f, { schema: 'annotation' }).catch((x: unknown) => x)) as JunoError;
    expect(e.code).toBe('E_SCHEMA');
    expect(e.message).toContain('missing required property "pipelineStage"');
    expect(e.location?.line).toBe(1);
  });

  it('refuses a line longer than the cap (MAX_LINE_CHARS unless given) by its file and line, without holding it whole', async () => {
    const d = await tmp();
    const f = path.join(d, 'huge.jsonl');
    await writeFile(f, `{"a":1}\n{"id":"${'x'.repeat(1000)}"}\n`);
    expect(await readJsonlAll(f)).toHaveLength(2);
    const readCapped = async () => {
      for await (const _ of readJsonl(f, { maxLineChars: 100 })) void _;
    };
    const err = await readCapped().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JunoError);
    expect(err).toMatchObject({ code: 'E_INPUT_FORMAT', location: { file: f, line: 2 } });
    expect((err as Error).message).toContain('a line of 1009 characters, longer than the 100 a JSONL line may be');
    expect(MAX_LINE_CHARS).toBeGreaterThanOrEqual(16 * 1024 * 1024);
  });

  it('reports a missing file and an empty JSON file clearly', async () => {
    const d = await tmp();
    await expect(readJsonFile(path.join(d, 'nope.json'))).rejects.toMatchObject({ code: 'E_INPUT_NOT_FOUND' });
    await writeFile(path.join(d, 'empty.json'), '  \n');
    await expect(readJsonFile(path.join(d, 'empty.json'))).rejects.toMatchObject({ code: 'E_INPUT_EMPTY' });
  });
});
