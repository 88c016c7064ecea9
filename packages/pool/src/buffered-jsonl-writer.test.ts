import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAtomic } from '@junobench/core';
import { BufferedJsonlWriter } from './buffered-jsonl-writer.js';

describe('BufferedJsonlWriter', () => {
  it.each([1, 40, 1 << 20])('writes every line in order with batches of %i bytes', async (batch) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pool-buf-'));
    try {
      const file = await openAtomic(path.join(dir, 'out.jsonl'));
      const w = new BufferedJsonlWriter<{ i: number; s: string }>(file, batch);
      for (let i = 0; i < 100; i++) await w.write({ i, s: 'x'.repeat(i % 7) });
      await w.flush();
      await file.commit();
      const lines = (await readFile(path.join(dir, 'out.jsonl'), 'utf8')).split('\n');
      expect(lines).toHaveLength(101);
      expect(lines.slice(0, 100).map((l) => (JSON.parse(l) as { i: number }).i)).toEqual(
        Array.from({ length: 100 }, (_, i) => i),
      );
      expect(w.count).toBe(100);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
