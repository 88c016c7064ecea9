// Prints the line CI reads, `N passed, N failed, N skipped` (always the last
// line), from vitest's JSON report, and exits non-zero when anything failed. Above it, the ten slowest test files.
//
// What counts as failed, so that no failure hides:
// - every failed test;
// - every test file vitest marks failed without a failed test in it: a file
//   that failed to load, or failed in beforeAll/afterAll (vitest then marks
//   its tests "skipped", which must not read as a pass);
// - a run vitest itself reports unsuccessful with nothing above (an unhandled
//   error), counted once;
// - a test command that exited non-zero with nothing above (`--exit-status N`):
//   vitest 4 writes `success: true` into its report when an unhandled error
//   was its only problem, and exits 1 — counted once;
// - a missing or unreadable report (a run that produced no report did not pass).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SKIPPED = new Set(['skipped', 'pending', 'todo', 'disabled']);

/** { passed, failed, skipped, problems: string[] } from a parsed vitest JSON report. */
export function summarizeVitestReport(report, options = {}) {
  let passed = 0;
  let failedTests = 0;
  let skipped = 0;
  const problems = [];
  let failedFiles = 0;
  for (const file of report.testResults ?? []) {
    const results = file.assertionResults ?? [];
    let failedHere = 0;
    for (const a of results) {
      if (a.status === 'passed') passed++;
      else if (a.status === 'failed') failedHere++;
      else if (SKIPPED.has(a.status)) skipped++;
    }
    failedTests += failedHere;
    if (file.status === 'failed' && failedHere === 0) {
      failedFiles++;
      const why =
        (file.message ?? '').split('\n')[0] ||
        (results.length ? 'failed in a hook (beforeAll/afterAll); its tests did not run' : 'failed to load');
      problems.push(`failed file: ${path.relative(process.cwd(), file.name ?? '?') || file.name}: ${why}`);
    }
  }
  let failed = failedTests + failedFiles;
  if (report.success === false && failed === 0) {
    failed = 1;
    problems.push(
      'vitest reported the run as failed although no test or file failed (an unhandled error?); see its output above',
    );
  }
  if (options.exitStatus && failed === 0) {
    failed = 1;
    problems.push(
      `the test command exited with status ${options.exitStatus} although its report names no failed test or file (an unhandled error?); see its output above`,
    );
  }
  return { passed, failed, skipped, problems };
}

/** A file's path from the working folder when it is inside it. */
function shortName(file) {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/**
 * The `n` test files that took longest, as `[seconds, file]`, longest first: their whole time with hooks
 * (`durationMs`, from tools/file-durations-reporter.mjs) where the report has it, else first test to last.
 */
export function slowestFiles(report, n = 10) {
  const seconds = (f) =>
    typeof f.durationMs === 'number'
      ? f.durationMs / 1000
      : typeof f.startTime === 'number' && typeof f.endTime === 'number'
        ? (f.endTime - f.startTime) / 1000
        : undefined;
  return (report.testResults ?? [])
    .filter((f) => seconds(f) !== undefined)
    .map((f) => [seconds(f), shortName(f.name ?? '?')])
    .sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1))
    .slice(0, n);
}

function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--exit-status');
  const exitStatus = at >= 0 ? Number(args.splice(at, 2)[1]) || 0 : 0;
  const file = args[0] ?? '.junobench-test-report.json';
  let summary;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    summary = summarizeVitestReport(report, { exitStatus });
    const slowest = slowestFiles(report);
    if (slowest.length > 0) {
      console.log(`the ${slowest.length} slowest test files:`);
      for (const [s, f] of slowest) console.log(`${s.toFixed(1).padStart(8)} s  ${f}`);
    }
  } catch (e) {
    summary = { passed: 0, failed: 1, skipped: 0, problems: [`no readable test report at ${file}: ${e.message}`] };
  }
  for (const p of summary.problems) console.error(p);
  console.log(`${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`);
  process.exitCode = summary.failed > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('print-test-summary.mjs')) main();
