import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { copyInstanceTree } from '@junobench/core';

/**
 * The scratch copies of one runner's runs, in its run folder: a notebook runs
 * in a copy of its instance folder, so it can never change the instance.
 */
export class ScratchCopies {
  private readonly dirs = new Map<number, string>();

  constructor(private readonly parent: string) {}

  /** A new empty folder (not yet anyone's). */
  create(): Promise<string> {
    return mkdtemp(path.join(this.parent, 'scratch-'));
  }

  /**
   * Copy the instance into `dir`. Links are materialised (never followed back
   * into the instance): a notebook writing its copy cannot change the instance
   * or anything outside it.
   */
  async fill(dir: string, instanceDir: string): Promise<void> {
    // `dir` was made by create(): if a temp cleaner removed the run folder since, fail rather than make it again.
    await copyInstanceTree(instanceDir, dir, { existingDest: true });
  }

  /** `dir` is `run`'s until released. */
  keep(run: number, dir: string): void {
    this.dirs.set(run, dir);
  }

  discard(dir: string): Promise<void> {
    return rm(dir, { recursive: true, force: true });
  }

  /** Remove `run`'s copy, if it has one. */
  async release(run: number): Promise<void> {
    const dir = this.dirs.get(run);
    this.dirs.delete(run);
    if (dir) await this.discard(dir);
  }

  /** Where `run`'s copy is (for the message of a removal that hangs). */
  whereIs(run: number): string | undefined {
    return this.dirs.get(run);
  }

  held(): number[] {
    return [...this.dirs.keys()];
  }
}
