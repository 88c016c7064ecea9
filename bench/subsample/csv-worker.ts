// Runs one table subsampling in its own process, so its peak memory (maxRSS)
// is measured alone. Prints one JSON line. Used by run.ts.
import { sampleTable } from '@junobench/subsample';

const [input, output, rows, mode] = process.argv.slice(2);
const started = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const report = await sampleTable(input!, output!, {
  rows: Number(rows),
  seed: 1,
  ...(mode === 'stratified'
    ? { stratifyBy: 'region', keep: [{ column: 'units', isMissing: true }] }
    : { preserveMissing: false }),
});
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({
    wallMs: Number(process.hrtime.bigint() - started) / 1e6,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    report: {
      rowsBefore: report.rowsBefore,
      rowsAfter: report.rowsAfter,
      strata: report.strata,
      bytesBefore: report.bytesBefore,
    },
  })}\n`,
);
