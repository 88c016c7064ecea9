// One step of bench/pool-scale in its own process, so that its peak memory
// (maxRSS) is its own. Prints one JSON line. Used by run.ts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { filterPool, importPool, libcausePool, resamplePool } from '@junobench/pool';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [step, dir] = process.argv.slice(2) as [string, string];
const file = (name: string) => path.join(dir, name);

const started = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
let records = 0;
let note = '';
switch (step) {
  case 'startup':
    break;
  case 'import-csv': {
    const r = await importPool([file('pool.csv')], { output: file('from-csv.jsonl') });
    records = r.total.read;
    note = `${r.total.imported} imported, ${r.total.rejected} rejected`;
    break;
  }
  case 'import-jsonl': {
    const r = await importPool([file('pool.jsonl')], { output: file('from-jsonl.jsonl') });
    records = r.total.read;
    note = `${r.total.imported} imported, ${r.total.rejected} rejected`;
    break;
  }
  case 'filter': {
    const r = await filterPool({
      input: file('pool.jsonl'),
      criteria: path.join(repo, 'raw/criteria/junobench.json'),
      output: file('kept.jsonl'),
      report: file('funnel.json'),
    });
    records = r.input;
    note = `${r.kept} kept`;
    break;
  }
  case 'libcause': {
    const r = await libcausePool({ input: file('pool.jsonl'), output: file('libcause.jsonl'), eval: true });
    records = r.records;
    note = `accuracy ${r.evaluation!.accuracy.toFixed(3)} on synthetic labels`;
    break;
  }
  case 'resample': {
    const r = await resamplePool({
      input: file('libcause.jsonl'),
      output: file('sample.jsonl'),
      perLibrary: 15,
      seed: 1,
    });
    records = r.input;
    note = `${r.selected} selected`;
    break;
  }
  default:
    throw new Error(`unknown step ${step}`);
}
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({
    step,
    records,
    wallMs: Number(process.hrtime.bigint() - started) / 1e6,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    note,
  })}\n`,
);
