// Prints the line CI reads, `N passed, N failed`, from vitest's JSON report.
// A missing or unreadable report counts as a failure: a run that produced no
// report did not pass.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.junobench-test-report.json';
let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed = report.numPassedTests ?? 0;
  // Suites that failed to load have no tests counted: count each as a failure.
  const brokenSuites = (report.testResults ?? []).filter((s) => s.status === 'failed' && (s.assertionResults ?? []).length === 0).length;
  failed = (report.numFailedTests ?? 0) + brokenSuites;
} catch (e) {
  console.error(`no readable test report at ${file}: ${e.message}`);
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
