// Lists the library-cause misses of the **dev** side of the seeded split of
// labelled pools, grouped by the rule that decided, for studying where the
// estimator goes wrong. Held-out crashes are skipped before anything is
// computed on them: this tool cannot show a held-out row or figure.
// `--dim crashType|rootCause|pipelineStage` lists that dimension's dev misses
// instead (suggestLabels on the record, as `labels suggest` reads a pool).
// Usage: npx tsx bench/suggest/dev-misses.ts [--rows] [--dim <dimension>] <pool.jsonl>...
import { readJsonlAll, stripAnsi, type CrashRecord } from '@junobench/core';
import {
  DEFAULT_SPLIT,
  assignSplit,
  normalizeLabels,
  predictLibrary,
  suggestLabelsWithRules,
} from '@junobench/suggest';

const args = process.argv.slice(2);
const showRows = args.includes('--rows');
const dimAt = args.indexOf('--dim');
const dim = dimAt >= 0 ? args[dimAt + 1] : 'library';
const files = args.filter((a, i) => a !== '--rows' && (dimAt < 0 || (i !== dimAt && i !== dimAt + 1)));
const DIMENSIONS = ['library', 'crashType', 'rootCause', 'pipelineStage'] as const;
type Dimension = (typeof DIMENSIONS)[number];
if (files.length === 0 || !DIMENSIONS.includes(dim as Dimension)) {
  console.error(
    'usage: npx tsx bench/suggest/dev-misses.ts [--rows] [--dim library|crashType|rootCause|pipelineStage] <pool.jsonl>...',
  );
  process.exit(2);
}

function predict(record: CrashRecord): { value: string; rule: string; evidence: readonly string[] } {
  if (dim === 'library') {
    const p = predictLibrary(record);
    return { value: p.library, rule: p.rule, evidence: p.evidence };
  }
  const d = dim as Exclude<Dimension, 'library'>;
  const input = {
    ename: record.ename,
    evalue: record.evalue,
    traceback: record.traceback,
    ...(record.imports ? { imports: record.imports } : {}),
  };
  const { suggestions, rules } = suggestLabelsWithRules(input);
  return { value: suggestions[d].value, rule: rules[d], evidence: suggestions[d].evidence };
}

interface Miss {
  pool: string;
  id: string;
  labelled: string;
  predicted: string;
  rule: string;
  exception: string;
  why: string;
  traceback: string;
}

for (const file of files) {
  let total = 0;
  let hits = 0;
  const misses: Miss[] = [];
  const confusion = new Map<string, number>();
  for (const record of await readJsonlAll<CrashRecord>(file, { schema: 'crash-record' })) {
    if (assignSplit(record.id, DEFAULT_SPLIT) !== 'dev') continue;
    const labelled = normalizeLabels(record.labels)[dim as Dimension];
    if (labelled === undefined) continue;
    total++;
    const p = predict(record);
    confusion.set(`${labelled} -> ${p.value}`, (confusion.get(`${labelled} -> ${p.value}`) ?? 0) + 1);
    if (p.value === labelled) {
      hits++;
      continue;
    }
    misses.push({
      pool: file,
      id: record.id,
      labelled,
      predicted: p.value,
      rule: p.rule,
      exception: `${record.ename}: ${record.evalue.slice(0, 160).replace(/\s+/g, ' ')}`,
      why: p.evidence.join(' | '),
      traceback: stripAnsi(record.traceback.join('\n')),
    });
  }
  console.log(`${file}: dev ${dim} ${(hits / total).toFixed(3)} (${hits}/${total}), ${misses.length} misses`);
  if (dim !== 'library') {
    for (const [pair, n] of [...confusion].sort((a, b) => b[1] - a[1]))
      if (!pair.split(' -> ').every((v, _, a) => v === a[0])) console.log(`  ${pair}: ${n}`);
  }
  const byRule = new Map<string, Miss[]>();
  for (const m of misses) byRule.set(m.rule, [...(byRule.get(m.rule) ?? []), m]);
  for (const [rule, ms] of [...byRule].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${rule}: ${ms.length}`);
    for (const m of ms) {
      console.log(`    [${m.id.slice(0, 8)}] labelled ${m.labelled} / predicted ${m.predicted} — ${m.exception}`);
      if (showRows) {
        console.log(`      why: ${m.why}`);
        console.log(
          m.traceback
            .split('\n')
            .slice(-40)
            .map((l) => `      | ${l}`)
            .join('\n'),
        );
      }
    }
  }
}
