// bench/filter-matches: what the linear-time engine behind the filter's
// `matches` (RE2 through re2js) costs against JavaScript's backtracking
// RegExp, on seeded traceback-like values, and what the backtracking engine
// costs on a hostile pattern. Ratios from one run; never part of the tests.
// Usage: npx tsx bench/filter-matches/run.ts [--values 200000]
import { createRng } from '@junobench/core';
import { compileLinearRegExp } from '@junobench/core';
import { flag } from '../args.js';

const N = Number(flag('--values', '200000'));
const rng = createRng('bench-filter-matches');
const words = [
  'KeyError',
  'ValueError',
  'shape',
  'mismatch',
  'tensor',
  'column',
  'price',
  'index',
  'out',
  'of',
  'range',
  'in',
  'cell',
  'line',
];
const values = Array.from({ length: N }, () =>
  Array.from({ length: 8 + rng.int(40) }, () => words[rng.int(words.length)]).join(' '),
);

function time(test: (s: string) => boolean): { ms: number; hits: number } {
  const t0 = performance.now();
  let hits = 0;
  for (const v of values) if (test(v)) hits++;
  return { ms: performance.now() - t0, hits };
}

console.log(`${N} values, ${Math.round(values.reduce((s, v) => s + v.length, 0) / N)} characters on average`);
console.log('| pattern | RegExp ms | RE2 (re2js) ms | ratio | same hits |');
console.log('|---|---|---|---|---|');
for (const p of [
  'KeyError',
  '^ValueError',
  'shape .*mismatch',
  '(KeyError|ValueError): .*price',
  '\\bindex\\b.*\\brange$',
]) {
  const js = new RegExp(p);
  const re2 = compileLinearRegExp(p);
  time((s) => js.test(s)); // warm-up
  time((s) => re2.test(s));
  const a = time((s) => js.test(s));
  const b = time((s) => re2.test(s));
  console.log(
    `| \`${p}\` | ${a.ms.toFixed(0)} | ${b.ms.toFixed(0)} | ${(b.ms / a.ms).toFixed(1)}× | ${a.hits === b.hits} |`,
  );
}
for (const n of [20, 24, 26]) {
  const evil = `${'a'.repeat(n)}!`;
  const t0 = performance.now();
  new RegExp('^(a+)+$').test(evil);
  const js = performance.now() - t0;
  const t1 = performance.now();
  compileLinearRegExp('^(a+)+$').test(evil);
  console.log(
    `^(a+)+$ on ${n} "a"s and "!": RegExp ${js.toFixed(0)} ms, RE2 ${(performance.now() - t1).toFixed(2)} ms`,
  );
}
