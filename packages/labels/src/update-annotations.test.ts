import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JunoError, type Annotation } from '@junobench/core';
import {
  annotatorFileName,
  planAnnotationUpdate,
  readAnnotationFile,
  writeAnnotationFile,
} from './update-annotations.js';

// Workbooks and temporary folders on a shared, busy machine: generous limits, never timings.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const labels = {
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
};
const line = (o: object) => JSON.stringify(o);
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-annotations-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('updating one annotator’s file', () => {
  it('keeps unchanged lines verbatim, replaces a changed one in place, appends new ones in id order', async () => {
    const kept =
      '{"instance": "a_1", "annotator": "alice", "library": "pandas", "crashType": "key error", "rootCause": "API misuse", "pipelineStage": "data preparation"}';
    const old = line({ instance: 'b_1', annotator: 'alice', ...labels });
    await writeFile(path.join(dir, 'alice.jsonl'), `${kept}\n${old}\n`);
    const bob = `${line({ instance: 'a_1', annotator: 'bob', ...labels })}\n`;
    await writeFile(path.join(dir, 'bob.jsonl'), bob);
    const incoming: Annotation[] = [
      { instance: 'c_1', annotator: 'alice', ...labels },
      { instance: 'b_1', annotator: 'alice', ...labels, crashType: 'value error', diagnosis: 'why' },
      { instance: 'a_1', annotator: 'alice', ...labels },
      { instance: 'a_2', annotator: 'alice', ...labels },
    ];
    const u = planAnnotationUpdate(await readAnnotationFile(dir, 'alice'), incoming);
    expect(u.added).toEqual(['a_2', 'c_1']);
    expect(u.unchanged).toEqual(['a_1']);
    expect(u.changes).toEqual([
      {
        instance: 'b_1',
        fields: [
          { field: 'crashType', from: 'key error', to: 'value error' },
          { field: 'diagnosis', from: '', to: 'why' },
        ],
      },
    ]);
    expect(await writeAnnotationFile(u)).toBe(true);
    const text = await readFile(path.join(dir, 'alice.jsonl'), 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(kept);
    expect(JSON.parse(lines[1]!)).toMatchObject({ instance: 'b_1', crashType: 'value error', diagnosis: 'why' });
    expect(lines.slice(2).map((l) => (JSON.parse(l) as Annotation).instance)).toEqual(['a_2', 'c_1']);
    // Another annotator's file is never touched.
    expect(await readFile(path.join(dir, 'bob.jsonl'), 'utf8')).toBe(bob);
    // The same labels again: nothing changes, nothing is written.
    const again = planAnnotationUpdate(await readAnnotationFile(dir, 'alice'), incoming);
    expect(again.changed).toBe(false);
    expect(await writeAnnotationFile(again)).toBe(false);
    expect(await readFile(path.join(dir, 'alice.jsonl'), 'utf8')).toBe(text);
  });

  it("finds an annotator's file by the name inside it, and refuses a file that holds someone else", async () => {
    await writeFile(
      path.join(dir, 'annotator-a.jsonl'),
      `${line({ instance: 'a_1', annotator: 'alice', ...labels })}\n`,
    );
    expect(path.basename((await readAnnotationFile(dir, 'alice')).file)).toBe('annotator-a.jsonl');
    expect(path.basename((await readAnnotationFile(dir, 'carol')).file)).toBe('carol.jsonl');
    await writeFile(path.join(dir, 'dave.jsonl'), `${line({ instance: 'a_1', annotator: 'erin', ...labels })}\n`);
    await expect(readAnnotationFile(dir, 'dave')).rejects.toThrow(/holds the labels of "erin", not "dave"/);
  });

  it.each(['../x', 'a b', 'adjudicated', ''])('refuses %j as an annotator name', (name) => {
    expect(() => annotatorFileName(name)).toThrow(JunoError);
  });
});
