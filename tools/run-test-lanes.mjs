// The whole suite in two lanes at once (`npm test` without arguments): vitest's projects `unit` and `slow` (the e2e
// files, and the kernel files of vitest.config.ts's `firstLane`) in one process, `containers` and `services` (the
// other kernel, Redis and browser files) in another. vitest runs
// the files of a project that is not file-parallel one at a time and after everything else, in a single worker, so
// one process would leave a core idle for most of the run; two lanes pair two slow files instead. The split keeps
// the two lanes about as long (vitest.config.ts says why).
//
// Each lane's output goes through with its name in front of every line. Their JSON reports are merged into one
// (the `--report` path), so tools/print-test-summary.mjs reads one run. Exit status: the first lane's non-zero one.
//
// Suite fixtures that lanes share (test/fixtures/suite-fixtures.ts) live in one folder for the run,
// JUNOBENCH_TEST_RUN_DIR, removed at the end.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const LANES = [
  { name: 'e2e', projects: ['unit', 'slow'] },
  { name: 'engines', projects: ['containers', 'services'] },
];

/** One report from the lanes' vitest JSON reports: their files together, success only when both succeeded. */
export function mergeVitestReports(reports) {
  const merged = { success: true, startTime: undefined, testResults: [] };
  for (const r of reports) {
    for (const [k, v] of Object.entries(r)) {
      if (typeof v === 'number' && k !== 'startTime') merged[k] = (merged[k] ?? 0) + v;
    }
    if (typeof r.startTime === 'number') merged.startTime = Math.min(merged.startTime ?? r.startTime, r.startTime);
    merged.success &&= r.success !== false;
    merged.testResults.push(...(r.testResults ?? []));
  }
  return merged;
}

/** Each file's whole time (tools/file-durations-reporter.mjs) on its entry of the report, as `durationMs`. */
export function addFileDurations(report, durations) {
  for (const f of report.testResults ?? []) {
    if (typeof durations[f.name] === 'number') f.durationMs = durations[f.name];
  }
  return report;
}

function runLane(lane, dir, env) {
  const report = path.join(dir, `${lane.name}.json`);
  const durations = path.join(dir, `${lane.name}.durations.json`);
  const args = ['vitest', 'run', ...lane.projects.flatMap((p) => ['--project', p])];
  args.push('--reporter=default', '--reporter=json', `--outputFile.json=${report}`);
  args.push(`--reporter=${fileURLToPath(new URL('./file-durations-reporter.mjs', import.meta.url))}`);
  const child = spawn('npx', args, {
    env: { ...env, JUNOBENCH_TEST_DURATIONS: durations },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    createInterface({ input: stream }).on('line', (line) => out.write(`[${lane.name}] ${line}\n`));
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ lane, report, durations, status: code ?? (signal ? 1 : 0) }));
  });
}

async function main() {
  const at = process.argv.indexOf('--report');
  const reportFile = at >= 0 ? process.argv[at + 1] : '.junobench-test-report.json';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'junobench-test-run-'));
  const env = { ...process.env, JUNOBENCH_TEST_RUN_DIR: path.join(dir, 'shared') };
  const stop = (signal) => {
    rmSync(dir, { recursive: true, force: true });
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  const started = Date.now();
  const results = await Promise.all(LANES.map((lane) => runLane(lane, dir, env)));
  const reports = [];
  for (const r of results) {
    try {
      const report = JSON.parse(readFileSync(r.report, 'utf8'));
      let durations = {};
      try {
        durations = JSON.parse(readFileSync(r.durations, 'utf8'));
      } catch {
        // no figures: the slowest files are then timed from the report's own test times
      }
      reports.push(addFileDurations(report, durations));
    } catch (e) {
      // A lane without a report did not pass: the merged report says so.
      console.error(`run-test-lanes: lane ${r.lane.name} wrote no readable report (${e.message})`);
      reports.push({ success: false, testResults: [] });
    }
  }
  const tmp = `${reportFile}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(mergeVitestReports(reports)));
  renameSync(tmp, reportFile);
  rmSync(dir, { recursive: true, force: true });
  for (const r of results) console.error(`run-test-lanes: lane ${r.lane.name} exited ${r.status}`);
  console.error(`run-test-lanes: ${((Date.now() - started) / 60000).toFixed(1)} min in all`);
  process.exitCode = results.find((r) => r.status !== 0)?.status ?? 0;
}

if (process.argv[1]?.endsWith('run-test-lanes.mjs')) await main();
