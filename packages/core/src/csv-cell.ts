/**
 * CSV formula injection (OWASP, "CSV Injection"): a spreadsheet opening a CSV
 * runs a cell that begins with `=`, `+`, `-` or `@` as a formula, and tab or
 * carriage return can smuggle one past a first character check. Crash messages,
 * diagnoses and dataset titles come from the internet, so every CSV written
 * for people (benchmark.csv) passes its cells through here: such a cell gets
 * a leading `'`, which spreadsheets show as text and never evaluate. The JSON
 * files keep the exact text.
 *
 * CSVs that are data for notebooks (subsampled or synthetic tables) are not
 * escaped: they must hold the same values as the data they stand for
 * (`-1.5` must stay a number for pandas).
 */
export function neutralizeCsvFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

const FORMULA_START = /^[=+\-@\t\r]/;
