// Builders of crashes as Jupyter prints them, for the tests of this package only.
import type { CrashRecord } from '@junobench/core';

export const SP = '/opt/conda/lib/python3.10/site-packages';

/** A notebook cell frame as IPython 8 prints it (`fn`: a function the cell defines, as `in f(x)`). */
export const cell = (code: string, n = 3, before: string[] = [], after: string[] = [], fn?: string) =>
  `Cell In[${n}], line ${before.length + 1}${fn ? `, in ${fn}` : ''}\n${before.map((b, i) => `      ${i + 1} ${b}\n`).join('')}----> ${before.length + 1} ${code}\n${after
    .map((a, i) => `      ${before.length + 2 + i} ${a}\n`)
    .join('')}`;

/** A frame of a file outside site-packages, as IPython 7 prints it (`path in f(args)`). */
export const file = (path: string, fn: string, code: string, line = 40) => `${path} in ${fn}\n---> ${line} ${code}\n`;

/** A library frame. */
export const lib = (file: string, fn: string, code: string, line = 120) =>
  `File ${SP}/${file}:${line}, in ${fn}\n--> ${line} ${code}\n`;

export function crash(ename: string, evalue: string, frames: string[], extra: Partial<CrashRecord> = {}): CrashRecord {
  return {
    id: 'x',
    notebook: 'nb.ipynb',
    source: 'kaggle',
    ename,
    evalue,
    traceback: [
      '-'.repeat(75),
      `${ename}                                 Traceback (most recent call last)`,
      ...frames,
      `${ename}: ${evalue}`,
    ],
    columns: {},
    ...extra,
  };
}
