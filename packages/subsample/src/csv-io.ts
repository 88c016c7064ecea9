import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, openAtomic, type AtomicFile } from '@junobench/core';
import { CsvTokenizer } from './csv-tokenizer.js';

/** How a CSV file is written, so a reduced copy is written the same way. */
export interface CsvFormat {
  delimiter: string;
  eol: '\n' | '\r\n';
  bom: boolean;
}

/** Table formats that are not delimited text, by extension. */
const BINARY_TABLES: Record<string, string> = {
  '.parquet': 'Parquet',
  '.feather': 'Feather',
  '.arrow': 'Arrow',
  '.xlsx': 'Excel',
  '.xls': 'Excel',
  '.pkl': 'pickle',
  '.pickle': 'pickle',
  '.h5': 'HDF5',
  '.hdf5': 'HDF5',
  '.npy': 'NumPy',
  '.npz': 'NumPy',
};

/** Delimiter (given, or by extension), line ending and BOM, from the first 64 KiB; refuses binary tables. */
export async function detectCsvFormat(file: string, delimiter?: string): Promise<CsvFormat> {
  const fh = await open(file, 'r').catch((e: unknown) => {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such file', {
      location: { file },
      hint: 'check the step path in the subsampling spec',
      cause: e,
    });
  });
  try {
    const buf = Buffer.alloc(65536);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead);
    const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
    const nl = head.indexOf(0x0a);
    const eol = nl > 0 && head[nl - 1] === 0x0d ? '\r\n' : '\n';
    const ext = path.extname(file).toLowerCase();
    // A binary table read as CSV would "work" and write garbage: refuse it by name.
    const binary =
      head.subarray(0, 4).toString('latin1') === 'PAR1'
        ? 'Parquet'
        : (BINARY_TABLES[ext] ?? (head.includes(0) ? 'binary' : undefined));
    if (binary) {
      throw new JunoError('E_INPUT_FORMAT', `${binary} file: the table method reads delimited text (CSV/TSV) only`, {
        location: { file },
        hint: 'convert the table to CSV first (e.g. pandas: pd.read_parquet(f).to_csv(out, index=False)), or subsample its folder with --method archive/images',
      });
    }
    return { delimiter: delimiter ?? (ext === '.tsv' || ext === '.tab' ? '\t' : ','), eol, bom };
  } finally {
    await fh.close();
  }
}

/**
 * Stream the records of a CSV file as arrays of strings (no type casting:
 * values keep their exact text, so pandas infers the same dtypes from the
 * copy). The first record is the header. Errors name the file and line.
 */
export async function* readCsvRecords(file: string, format: CsvFormat): AsyncGenerator<string[]> {
  for await (const batch of readCsvBatches(file, format)) yield* batch;
}

/**
 * The same records in batches (one per chunk of the file): a multi-GB file
 * costs one await per batch instead of one per row, and stays in bounded
 * memory (one chunk of text and its records at a time).
 */
export async function* readCsvBatches(file: string, format: CsvFormat): AsyncGenerator<string[][]> {
  const tokenizer = new CsvTokenizer(format.delimiter, file);
  const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 18 });
  try {
    for await (const chunk of input) {
      const out: string[][] = [];
      tokenizer.push(chunk as string, out);
      if (out.length > 0) yield out;
    }
    const last: string[][] = [];
    tokenizer.end(last);
    if (last.length > 0) yield last;
  } catch (e) {
    if (e instanceof JunoError) throw e;
    throw new JunoError('E_INPUT_NOT_FOUND', `cannot read the table: ${(e as Error).message}`, {
      location: { file },
      cause: e,
    });
  } finally {
    input.destroy();
  }
}

/**
 * One record as CSV text: a value is quoted (with `""` inside) only when it
 * holds the delimiter, a double quote or a line break — csv-stringify's rule,
 * which the tests check — and, in a one-column file, when it is empty (a
 * blank line would be skipped by pandas).
 */
export function formatCsvRecord(record: readonly string[], format: CsvFormat, quoteEmpty = false): string {
  let line = '';
  for (let i = 0; i < record.length; i++) {
    const v = record[i]!;
    if (i > 0) line += format.delimiter;
    if (
      (quoteEmpty && v === '') ||
      v.includes(format.delimiter) ||
      v.includes('"') ||
      v.includes('\n') ||
      v.includes('\r')
    ) {
      line += `"${v.replace(/"/g, '""')}"`;
    } else line += v;
  }
  return line + format.eol;
}

/**
 * Writes records to an atomic file, in blocks. Records are turned into text
 * as they arrive: holding the records themselves would keep alive the chunks
 * of the input their values are views into (hundreds of MB on a large file).
 */
export class CsvWriter {
  private parts: Buffer[] = [];
  private pending = 0;
  rows = 0;
  bytes = 0;
  private constructor(
    private readonly file: AtomicFile,
    private readonly format: CsvFormat,
    private readonly columns: number,
  ) {}

  static async open(file: string, format: CsvFormat, columns: number): Promise<CsvWriter> {
    const w = new CsvWriter(await openAtomic(file), format, columns);
    if (format.bom) w.push('\ufeff');
    return w;
  }

  // Encoding copies the text: a rope of concatenated strings would still point at the input's chunks.
  private push(text: string): void {
    const b = Buffer.from(text, 'utf8');
    this.parts.push(b);
    this.pending += b.length;
  }

  async write(record: readonly string[]): Promise<void> {
    this.push(formatCsvRecord(record, this.format, this.columns === 1));
    this.rows++;
    if (this.pending >= 1 << 18) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending === 0 && this.parts.length === 0) return;
    const buf = Buffer.concat(this.parts, this.pending);
    this.parts = [];
    this.pending = 0;
    this.bytes += buf.length;
    await this.file.write(buf);
  }

  async commit(): Promise<void> {
    await this.flush();
    await this.file.commit();
  }

  abort(): Promise<void> {
    return this.file.abort();
  }
}
