import { readFile } from 'node:fs/promises';
import { JunoError, stableStringify, validateOrThrow, writeFileAtomic, type TaskKind } from '@junobench/core';
import { ToolError } from './tool-error.js';

/**
 * The predictions file sessions submit to: each submit rewrites it atomically with one more line (a reader never sees
 * half a line), one submit at a time. The attempt number counts the task's lines already there, so a task answered
 * again (another session, another server run on the same file) is a further attempt, as `score` reads them.
 */
export class PredictionsFile {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  append(task: TaskKind, id: string, answer: Record<string, unknown>): Promise<{ attempt: number }> {
    const next = this.chain.then(() => this.write(task, id, answer));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async write(task: TaskKind, id: string, answer: Record<string, unknown>): Promise<{ attempt: number }> {
    let text = '';
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (text.length > 0 && !text.endsWith('\n')) text += '\n';
    let attempt = 1;
    for (const l of text.split('\n')) {
      if (l.trim() === '') continue;
      try {
        if ((JSON.parse(l) as { id?: unknown }).id === id) attempt++;
      } catch {
        // Not ours to judge here: score names the line.
      }
    }
    const line = { task, id, attempt, answer };
    try {
      validateOrThrow('prediction', line, { file: this.file });
    } catch (e) {
      if (e instanceof JunoError)
        throw new ToolError('bad-arguments', `submit: the answer is not a ${task} answer: ${e.message}`);
      throw e;
    }
    await writeFileAtomic(this.file, `${text}${stableStringify(line)}\n`);
    return { attempt };
  }
}
