import type { AtomicFile } from '@junobench/core';

/**
 * JSON Lines into an atomic file, written in ~1 MB batches: one write per
 * record costs a stream round-trip (and a wait for 'drain' every few records),
 * which dominates a million-record stage. Memory stays bounded by the batch.
 */
export class BufferedJsonlWriter<T> {
  count = 0;
  private parts: string[] = [];
  private size = 0;

  constructor(
    private readonly file: AtomicFile,
    private readonly batchBytes = 1 << 20,
  ) {}

  async write(value: T): Promise<void> {
    const line = `${JSON.stringify(value)}\n`;
    this.parts.push(line);
    this.size += line.length;
    this.count++;
    if (this.size >= this.batchBytes) await this.flush();
  }

  /** Write what is buffered; call before the file is committed. */
  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    await this.file.write(chunk);
  }
}
