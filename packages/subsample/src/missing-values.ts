/**
 * The texts pandas reads as missing by default (`read_csv` na_values, pandas
 * ≥ 1.x plus "None" from 2.0). The missing-value share a notebook sees is
 * computed with this set, so subsampling and synthetic data keep it.
 */
export const PANDAS_NA_VALUES: ReadonlySet<string> = new Set([
  '',
  '#N/A',
  '#N/A N/A',
  '#NA',
  '-1.#IND',
  '-1.#QNAN',
  '-NaN',
  '-nan',
  '1.#IND',
  '1.#QNAN',
  '<NA>',
  'N/A',
  'NA',
  'NULL',
  'NaN',
  'None',
  'n/a',
  'nan',
  'null',
]);

// First characters of the NA texts: most values are rejected without hashing them.
const NA_FIRST = new Set([...PANDAS_NA_VALUES].filter((v) => v !== '').map((v) => v.charCodeAt(0)));

export function isMissingValue(text: string | undefined): boolean {
  if (text === undefined || text.length === 0) return true;
  return text.length <= 8 && NA_FIRST.has(text.charCodeAt(0)) && PANDAS_NA_VALUES.has(text);
}
