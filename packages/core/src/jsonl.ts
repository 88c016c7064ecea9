import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { JunoError } from './errors.js';
import { openAtomic, type AtomicFile } from './atomic.js';
import { MAX_LINE_CHARS, readLinesCapped } from './lines.js';
import { validateOrThrow, type SchemaName } from './validate.js';

export interface JsonlLine<T> {
  value: T;
  /** 1-based line number in the file. */
  line: number;
}

/**
 * Stream a JSONL file line by line (constant memory for any size). Blank
 * lines are skipped. A line that is not JSON, or does not match `schema`,
 * throws an E_INPUT_FORMAT/E_SCHEMA error naming the file and line.
 */
export async function* readJsonl<T = unknown>(
  file: string,
  options: { schema?: SchemaName; maxLineChars?: number } = {},
): AsyncGenerator<JsonlLine<T>> {
  const max = options.maxLineChars ?? MAX_LINE_CHARS;
  await assertReadableFile(file);
  for await (const read of readLinesCapped(createReadStream(file, { encoding: 'utf8' }), max)) {
    const { line } = read;
    if ('tooLong' in read) {
      throw new JunoError(
        'E_INPUT_FORMAT',
        `a line of ${read.tooLong.chars} characters, longer than the ${max} a JSONL line may be`,
        {
          location: { file, line },
          hint: 'each line of a .jsonl file is one record; a line this long is not one this tool wrote — check the file',
        },
      );
    }
    const text = read.text;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new JunoError('E_INPUT_FORMAT', `invalid JSON: ${(e as Error).message}`, {
        location: { file, line },
        hint: 'each line of a .jsonl file must be one complete JSON value',
        cause: e,
      });
    }
    if (options.schema) value = validateOrThrow<T>(options.schema, value, { file, line });
    yield { value: value as T, line };
  }
}

/** Read a whole JSONL file into memory (for small files: annotations, reports). */
export async function readJsonlAll<T = unknown>(file: string, options: { schema?: SchemaName } = {}): Promise<T[]> {
  const out: T[] = [];
  for await (const { value } of readJsonl<T>(file, options)) out.push(value);
  return out;
}

/** A JSONL writer over an atomic file: nothing is visible until commit(). */
export class JsonlWriter<T = unknown> {
  count = 0;
  private constructor(private readonly file: AtomicFile) {}

  static async open<T>(file: string): Promise<JsonlWriter<T>> {
    return new JsonlWriter<T>(await openAtomic(file));
  }

  static over<T>(file: AtomicFile): JsonlWriter<T> {
    return new JsonlWriter<T>(file);
  }

  async write(value: T): Promise<void> {
    this.count++;
    await this.file.write(`${JSON.stringify(value)}\n`);
  }

  commit(): Promise<void> {
    return this.file.commit();
  }

  abort(): Promise<void> {
    return this.file.abort();
  }
}

export async function writeJsonl<T>(file: string, values: Iterable<T> | AsyncIterable<T>): Promise<number> {
  const w = await JsonlWriter.open<T>(file);
  try {
    for await (const v of values) await w.write(v);
    await w.commit();
    return w.count;
  } catch (e) {
    await w.abort();
    throw e;
  }
}

/** Read and parse a JSON file, with errors that name the file. */
export async function readJsonFile<T = unknown>(file: string, options: { schema?: SchemaName } = {}): Promise<T> {
  await assertReadableFile(file);
  const text = await readFile(file, 'utf8');
  if (text.trim() === '') {
    throw new JunoError('E_INPUT_EMPTY', 'the file is empty; expected a JSON document', { location: { file } });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new JunoError('E_INPUT_FORMAT', `invalid JSON: ${(e as Error).message}`, { location: { file }, cause: e });
  }
  return options.schema ? validateOrThrow<T>(options.schema, value, { file }) : (value as T);
}

export async function assertReadableFile(file: string): Promise<void> {
  try {
    const st = await stat(file);
    if (st.isDirectory()) {
      throw new JunoError('E_INPUT_FORMAT', 'is a folder; expected a file', { location: { file } });
    }
  } catch (e) {
    if (e instanceof JunoError) throw e;
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such file', {
      location: { file },
      hint: 'check the path (relative paths are resolved from the current folder)',
      cause: e,
    });
  }
}
