// Lists the library-cause misses of the **dev** side of the seeded split of
// labelled pools, grouped by the rule that decided, for studying where the
// estimator goes wrong. Held-out crashes are skipped before anything is
// computed on them: this tool cannot show a held-out row or figure.
// Usage: npx tsx bench/suggest/dev-misses.ts [--rows] <pool.jsonl>...
import { readJsonlAll, stripAnsi, type CrashRecord } from '@junobench/core';
import { DEFAULT_SPLIT, assignSplit, normalizeLabels, predictLibrary } from '@junobench/suggest';

const args = process.argv.slice(2);
const showRows = args.includes('--rows');
const files = args.filter((a) => a !== '--rows');
if (files.length === 0) {
  console.error('usage: npx tsx bench/suggest/dev-misses.ts [--rows] <pool.jsonl>...');
  process.exit(2);
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
  for (const record of await readJsonlAll<CrashRecord>(file, { schema: 'crash-record' })) {
    if (assignSplit(record.id, DEFAULT_SPLIT) !== 'dev') continue;
    const labelled = normalizeLabels(record.labels).library;
    if (labelled === undefined) continue;
    total++;
    const p = predictLibrary(record);
    if (p.library === labelled) {
      hits++;
      continue;
    }
    misses.push({
      pool: file,
      id: record.id,
      labelled,
      predicted: p.library,
      rule: p.rule,
      exception: `${record.ename}: ${record.evalue.slice(0, 160).replace(/\s+/g, ' ')}`,
      why: p.evidence[0] ?? '',
      traceback: stripAnsi(record.traceback.join('\n')),
    });
  }
  console.log(`${file}: dev library ${(hits / total).toFixed(3)} (${hits}/${total}), ${misses.length} misses`);
  const byRule = new Map<string, Miss[]>();
  for (const m of misses) byRule.set(m.rule, [...(byRule.get(m.rule) ?? []), m]);
  for (const [rule, ms] of [...byRule].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${rule}: ${ms.length}`);
    for (const m of ms) {
      console.log(`    [${m.id.slice(0, 8)}] labelled ${m.labelled} / predicted ${m.predicted} — ${m.exception}`);
      if (showRows) {
        console.log(`      why: ${m.why}`);
        console.log(m.traceback.split('\n').slice(-40).map((l) => `      | ${l}`).join('\n'));
      }
    }
  }
}
