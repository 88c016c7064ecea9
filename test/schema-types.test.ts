import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateSchemaTypes, typesFile } from '../tools/gen-types.js';

describe('generated schema types', () => {
  it('match schemas/*.schema.json (run `npm run gen:types` after changing a schema)', async () => {
    const fresh = await generateSchemaTypes();
    expect(await readFile(typesFile, 'utf8')).toBe(fresh);
  }, 60_000);
});
