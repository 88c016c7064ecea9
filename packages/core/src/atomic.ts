import {
  close as closeFd,
  createWriteStream,
  openSync,
  unlinkSync,
  writeFile as writeFd,
  type WriteStream,
} from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { once } from 'node:events';
import { JunoError } from './errors.js';
import { stableStringify } from './hash.js';
import { validateOrThrow, type SchemaName } from './validate.js';

/**
 * Outputs are written to a temporary file beside the target and renamed into
 * place only when complete, so a crash, an error or Ctrl-C never leaves a
 * half-written output that a later stage (or Nx's cache) would take as done.
 */
function openTemp(file: string): { tmp: string; fd: number } {
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', removePendingTempFiles);
  }
  // Created synchronously, in the same turn as it is recorded: an open on the
  // thread pool could still be in flight when a signal ends the process, and
  // would create the file after the exit hook had found nothing to remove.
  pending.add(tmp);
  try {
    return { tmp, fd: openSync(tmp, 'wx') };
  } catch (e) {
    settled(tmp);
    throw outputPathError(e, file);
  }
}

const writeToFd = promisify(writeFd);
const closeFdAsync = promisify(closeFd);

/**
 * Temporary files not yet renamed into place or removed. When the process
 * exits before that (an interrupt, `process.exit` on a fatal error), they are
 * removed on the way out, so no `.<name>.<pid>.<hex>.tmp` piles up beside
 * the outputs. (A SIGKILL leaves them; nothing can run then.)
 */
const pending = new Set<string>();
let exitHookInstalled = false;

function removePendingTempFiles(): void {
  for (const tmp of pending) {
    try {
      unlinkSync(tmp);
    } catch {
      // Already gone, or never created.
    }
  }
  pending.clear();
}

/** The temp file is renamed into place or removed: nothing to clean at exit. */
function settled(tmp: string): void {
  pending.delete(tmp);
}

/**
 * An output path the file system will not take (a folder, a path under a
 * file, a read-only or forbidden place) as bad usage naming it, exit 2 —
 * not an internal error. Other errors pass through unchanged.
 */
function outputPathError(e: unknown, file: string): unknown {
  const code = (e as NodeJS.ErrnoException)?.code;
  const why: Record<string, string> = {
    EISDIR: 'it is a folder; give a file path',
    ENOTDIR: 'a part of its path is a file, not a folder',
    EEXIST: 'a part of its path is a file, not a folder',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
  };
  if (!code || !why[code]) return e;
  return new JunoError('E_USAGE', `cannot write ${file}: ${why[code]}`, {
    location: { file },
    hint: 'write the output somewhere else',
    cause: e,
  });
}

export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true }).catch((e: unknown) => {
    throw outputPathError(e, file);
  });
  const { tmp, fd } = openTemp(file);
  try {
    try {
      await writeToFd(fd, data);
    } finally {
      await closeFdAsync(fd);
    }
  } catch (e) {
    await rm(tmp, { force: true });
    settled(tmp);
    throw outputPathError(e, file);
  }
  await renameIntoPlace(tmp, file);
}

/** The finished temporary file becomes the output; on failure it is removed and the error names the output. */
async function renameIntoPlace(tmp: string, file: string): Promise<void> {
  try {
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw outputPathError(e, file);
  } finally {
    settled(tmp);
  }
}

/** Pretty JSON with sorted keys and a final newline: byte-identical for equal values. */
export function formatJson(value: unknown): string {
  return `${stableStringify(value, 2)}\n`;
}

export interface WriteJsonOptions {
  /**
   * The file's format: the value is checked against it first. Every file the
   * toolchain writes has a schema; one that fails its own is a bug (E_INTERNAL,
   * exit 70) naming the file and field, and nothing is written.
   */
  schema?: SchemaName;
}

export async function writeJsonAtomic(file: string, value: unknown, options: WriteJsonOptions = {}): Promise<void> {
  if (options.schema !== undefined) validateOrThrow(options.schema, value, { file }, 'E_INTERNAL');
  await writeFileAtomic(file, formatJson(value));
}

/** A file being written in pieces; visible at its path only after commit(). */
export interface AtomicFile {
  readonly path: string;
  write(chunk: string | Uint8Array): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export async function openAtomic(file: string): Promise<AtomicFile> {
  await mkdir(path.dirname(file), { recursive: true }).catch((e: unknown) => {
    throw outputPathError(e, file);
  });
  if ((await stat(file).catch(() => undefined))?.isDirectory())
    throw outputPathError(Object.assign(new Error('EISDIR'), { code: 'EISDIR' }), file);
  const { tmp, fd } = openTemp(file);
  const stream: WriteStream = createWriteStream(tmp, { fd });
  let done = false;
  const close = async () => {
    if (stream.closed) return;
    stream.end();
    await once(stream, 'close');
  };
  return {
    path: file,
    async write(chunk) {
      if (done) throw new Error(`write after commit/abort of ${file}`);
      // Respect backpressure so a million-record stream stays in bounded memory.
      if (!stream.write(chunk)) await once(stream, 'drain');
    },
    async commit() {
      if (done) return;
      done = true;
      await close();
      await renameIntoPlace(tmp, file);
    },
    async abort() {
      if (done) return;
      done = true;
      await close().catch(() => undefined);
      await rm(tmp, { force: true });
      settled(tmp);
    },
  };
}

/**
 * Several outputs of one command that must appear together or not at all
 * (kept records + funnel report + rejects). Commit renames them in order once
 * everything was written; abort removes every temporary file.
 */
export class OutputSet {
  private readonly files: AtomicFile[] = [];

  async open(file: string): Promise<AtomicFile> {
    const same = this.files.find((f) => path.resolve(f.path) === path.resolve(file));
    if (same) {
      // The second would be renamed over the first at commit: one output silently lost.
      throw new JunoError('E_USAGE', 'two outputs of this command are the same file', {
        location: { file },
        hint: 'give each output its own path (-o and --rejects/--report differ)',
      });
    }
    const f = await openAtomic(file);
    this.files.push(f);
    return f;
  }

  async commit(): Promise<void> {
    for (const f of this.files) await f.commit();
  }

  async abort(): Promise<void> {
    await Promise.all(this.files.map((f) => f.abort()));
  }

  /** Run `work` with this set; commit on success, abort (and rethrow) on failure. */
  static async run<T>(work: (outputs: OutputSet) => Promise<T>): Promise<T> {
    const set = new OutputSet();
    try {
      const result = await work(set);
      await set.commit();
      return result;
    } catch (e) {
      await set.abort();
      throw e;
    }
  }
}
