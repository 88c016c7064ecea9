// Measures every suggestion rule on the development split of labelled pools
// and prints the RULE_CONFIDENCE table of packages/suggest/src/rule-confidence.ts.
// Only the dev split is read: the held-out split stays unseen by the rules and
// their confidences. Usage: npx tsx bench/suggest/calibrate.ts <pool.jsonl>...
// (pools as `junobench pool import` writes them, e.g. of benchmark_desc.xlsx).
import { readJsonlAll, type CrashRecord } from '@junobench/core';
import {
  DEFAULT_SPLIT,
  RULE_CONFIDENCE,
  SuggestionEvaluator,
  assignSplit,
  normalizeLabels,
  suggestLabelsWithRules,
} from '@junobench/suggest';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx bench/suggest/calibrate.ts <pool.jsonl>...');
  process.exit(2);
}
const seen = new Set<string>();
const evaluator = new SuggestionEvaluator();
for (const file of files) {
  for (const record of await readJsonlAll<CrashRecord>(file, { schema: 'crash-record' })) {
    // A crash present in several pools (the benchmark's rows are in the study's pool) counts once.
    if (seen.has(record.id) || assignSplit(record.id, DEFAULT_SPLIT) !== 'dev') continue;
    seen.add(record.id);
    const { suggestions, rules } = suggestLabelsWithRules(record);
    evaluator.add(normalizeLabels(record.labels), suggestions, rules);
  }
}
const { rules, dimensions } = evaluator.result();
// Laplace smoothing: a rule that fired twice and hit twice is not certain.
const smoothed = (hits: number, total: number) => Math.round(((hits + 1) / (total + 2)) * 100) / 100;
console.log(
  `// ${seen.size} dev crashes; accuracy ${Object.entries(dimensions)
    .map(([d, e]) => `${d} ${e.accuracy.toFixed(3)}`)
    .join(', ')}`,
);
for (const id of Object.keys(RULE_CONFIDENCE)) {
  const r = rules[id];
  console.log(`  '${id}': ${r ? smoothed(r.hits, r.total) : 0.5}, // ${r ? `${r.hits}/${r.total}` : 'never fired'}`);
}
