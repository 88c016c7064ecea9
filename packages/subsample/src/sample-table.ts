import { stat } from 'node:fs/promises';
import {
  JunoError,
  noProgress,
  suggestClosest,
  type ProgressListener,
  type RowFilter,
  type SubsampleColumnMissingShare,
  type SubsampleTableReport,
} from '@junobench/core';
import { CsvWriter, detectCsvFormat, readCsvBatches } from './csv-io.js';
import { detachString } from './csv-tokenizer.js';
import { isMissingValue } from './missing-values.js';
import { compileRowFilters } from './row-filter.js';
import { StratifiedSelector, allocateQuotas } from './select-rows.js';

export interface SampleTableOptions {
  /** Rows to keep (header excluded); or `fraction`. */
  rows?: number;
  fraction?: number;
  /** Column whose value shares are kept (each value keeps at least one row when the budget allows). */
  stratifyBy?: string;
  /** Rows always kept (a crash may depend on them), on top of the budget's share. */
  keep?: readonly RowFilter[];
  /** Also stratify by the pattern of missing values (default true). */
  preserveMissing?: boolean;
  delimiter?: string;
  seed: string | number;
  onProgress?: ProgressListener;
  /** Upper bound on distinct strata kept in memory (default 200,000). */
  maxStrata?: number;
}

/** A column's share of missing values before and after. */
export type ColumnMissingShare = SubsampleColumnMissingShare;

/** What a table step did: the `table` report of schemas/subsample-report.schema.json. */
export type TableSampleReport = SubsampleTableReport;

/**
 * Keep some rows of a CSV file, streaming it twice: the first pass counts
 * rows per stratum (value of `stratifyBy` × missing-value pattern) and the
 * second keeps exactly each stratum's quota by selection sampling, plus the
 * rows the `keep` filters match. Memory is O(strata), not O(rows); rows keep
 * their order, the header, the column order and every value's exact text.
 */
export async function sampleTable(
  input: string,
  output: string,
  options: SampleTableOptions,
): Promise<TableSampleReport> {
  const progress = options.onProgress ?? noProgress;
  const format = await detectCsvFormat(input, options.delimiter);
  const preserveMissing = options.preserveMissing ?? true;
  const maxStrata = options.maxStrata ?? 200_000;

  let header: string[] | undefined;
  let stratCol = -1;
  let keepRow: (row: readonly string[]) => boolean = () => false;
  const counts = new Map<string, number>();
  let missingMode: 'full' | 'any' | 'off' = preserveMissing ? 'full' : 'off';
  let missingBefore: number[] = [];
  let rowsBefore = 0;
  let keptByFilter = 0;

  const keyOf = (row: readonly string[], mode: 'full' | 'any' | 'off'): string => {
    let key = stratCol >= 0 ? (row[stratCol] ?? '') : '';
    if (mode === 'off') return key;
    let mask = '';
    for (let c = 0; c < header!.length; c++) {
      if (isMissingValue(row[c])) {
        if (mode === 'any') {
          mask = '*';
          break;
        }
        mask += `${c},`;
      }
    }
    key += `\u0000${mask}`;
    return key;
  };
  // Too many missing-value patterns: fold them into "any missing / none" (the same fold is applied in pass 2).
  const foldKey = (key: string): string => {
    const i = key.lastIndexOf('\u0000');
    return `${key.slice(0, i)}\u0000${key.length - i > 1 ? '*' : ''}`;
  };

  for await (const batch of readCsvBatches(input, format))
    for (const row of batch) {
      if (!header) {
        header = row;
        missingBefore = new Array<number>(header.length).fill(0);
        if (options.stratifyBy !== undefined) {
          stratCol = header.indexOf(options.stratifyBy);
          if (stratCol < 0) {
            const close = suggestClosest(options.stratifyBy, header);
            throw new JunoError('E_INPUT_COLUMNS', `no column "${options.stratifyBy}" to stratify by`, {
              location: { file: input, line: 1, field: 'stratifyBy' },
              hint: close ? `did you mean "${close}"?` : `columns are: ${header.slice(0, 20).join(', ')}`,
            });
          }
        }
        keepRow = compileRowFilters(options.keep ?? [], header, input);
        continue;
      }
      rowsBefore++;
      for (let c = 0; c < header.length; c++) if (isMissingValue(row[c])) missingBefore[c]!++;
      if (keepRow(row)) {
        keptByFilter++;
        continue;
      }
      const key = keyOf(row, missingMode);
      const seen = counts.get(key);
      if (seen === undefined) counts.set(detachString(key), 1);
      else counts.set(key, seen + 1);
      if (counts.size > maxStrata) {
        if (missingMode !== 'full') {
          throw new JunoError(
            'E_SUBSAMPLE',
            `more than ${maxStrata} distinct values in "${options.stratifyBy}" to stratify by`,
            {
              location: { file: input, field: 'stratifyBy' },
              hint: 'stratify by a column with fewer distinct values (a class label or category, not an id)',
            },
          );
        }
        missingMode = 'any';
        const folded = new Map<string, number>();
        for (const [k, n] of counts) folded.set(foldKey(k), (folded.get(foldKey(k)) ?? 0) + n);
        counts.clear();
        for (const [k, n] of folded) counts.set(k, n);
      }
      if (rowsBefore % 200_000 === 0)
        progress({ task: 'subsample table', done: rowsBefore, item: input, message: 'counting' });
    }
  if (!header) {
    throw new JunoError('E_INPUT_EMPTY', 'the table is empty; expected a header line and rows', {
      location: { file: input },
    });
  }

  const wanted = options.rows ?? Math.round(rowsBefore * (options.fraction ?? 1));
  const quotas = allocateQuotas(counts, Math.max(0, wanted - keptByFilter));
  const selector = new StratifiedSelector(options.seed, counts, quotas);

  const writer = await CsvWriter.open(output, format, header.length);
  const missingAfter = new Array<number>(header.length).fill(0);
  try {
    let first = true;
    let seen = 0;
    for await (const batch of readCsvBatches(input, format))
      for (const row of batch) {
        if (first) {
          first = false;
          await writer.write(row);
          continue;
        }
        seen++;
        const take = keepRow(row) || selector.take(keyOf(row, missingMode));
        if (take) {
          for (let c = 0; c < header.length; c++) if (isMissingValue(row[c])) missingAfter[c]!++;
          await writer.write(row);
        }
        if (seen % 200_000 === 0) progress({ task: 'subsample table', done: seen, total: rowsBefore, item: input });
      }
    if (seen !== rowsBefore) {
      throw new JunoError('E_STATE', `the table changed while it was read (${rowsBefore} rows, then ${seen})`, {
        location: { file: input },
      });
    }
    await writer.commit();
  } catch (e) {
    await writer.abort();
    throw e;
  }
  const rowsAfter = writer.rows - 1;
  const missing: ColumnMissingShare[] = [];
  header.forEach((column, c) => {
    if (missingBefore[c]! > 0 || missingAfter[c]! > 0) {
      missing.push({ column, before: share(missingBefore[c]!, rowsBefore), after: share(missingAfter[c]!, rowsAfter) });
    }
  });
  return {
    rowsBefore,
    rowsAfter,
    keptByFilter,
    strata: counts.size,
    missingPattern: missingMode,
    bytesBefore: (await stat(input)).size,
    bytesAfter: writer.bytes,
    missing,
  };
}

function share(n: number, total: number): number {
  return total === 0 ? 0 : Math.round((n / total) * 1e6) / 1e6;
}
