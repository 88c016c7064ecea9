import { JunoError, compileLinearRegExp, suggestClosest, type LinearRegExp, type RowFilter } from '@junobench/core';
import { isMissingValue } from './missing-values.js';

export type RowPredicate = (row: readonly string[]) => boolean;

/**
 * Compile the spec's row filters against a header: a row is kept when any
 * filter matches; a filter matches when every condition it gives holds.
 * Unknown columns fail here, before a multi-GB file is read.
 */
export function compileRowFilters(
  filters: readonly RowFilter[],
  header: readonly string[],
  file: string,
): RowPredicate {
  const compiled = filters.map((f, i) => {
    const col = header.indexOf(f.column);
    if (col < 0) {
      const close = suggestClosest(f.column, header);
      throw new JunoError(
        'E_INPUT_COLUMNS',
        `row filter ${i} names column "${f.column}", which the table does not have`,
        {
          location: { file, field: `keep[${i}].column` },
          hint: close
            ? `did you mean "${close}"?`
            : `columns are: ${header.slice(0, 20).join(', ')}${header.length > 20 ? ', …' : ''}`,
        },
      );
    }
    let re: LinearRegExp | undefined;
    if (f.matches !== undefined) {
      // Linear time: the pattern comes with the instance and runs on every row of its data.
      try {
        re = compileLinearRegExp(f.matches);
      } catch (e) {
        throw new JunoError(
          'E_SCHEMA',
          `row filter ${i}: not a regular expression the linear-time engine runs: ${(e as Error).message}`,
          {
            location: { file, field: `keep[${i}].matches` },
            hint: 'write it without backreferences or lookarounds',
            cause: e,
          },
        );
      }
    }
    const inSet = f.in ? new Set(f.in) : undefined;
    return (row: readonly string[]): boolean => {
      const v = row[col];
      if (f.isMissing !== undefined && isMissingValue(v) !== f.isMissing) return false;
      if (f.equals !== undefined && v !== f.equals) return false;
      if (inSet && (v === undefined || !inSet.has(v))) return false;
      if (re && (v === undefined || !re.test(v))) return false;
      return true;
    };
  });
  if (compiled.length === 0) return () => false;
  return (row) => compiled.some((p) => p(row));
}
