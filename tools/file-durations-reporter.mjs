// A vitest reporter that writes how long each test file ran, hooks included, to JUNOBENCH_TEST_DURATIONS (JSON:
// `{ "<file>": ms }`). vitest's JSON report times a file from its first test's start to its last test's end, which
// leaves out beforeAll/afterAll: a file that does its real work there (a whole `junobench build --runtime docker`
// in beforeAll) read as a few seconds. tools/run-test-lanes.mjs passes it to each lane and puts the figures into the
// merged report, where tools/print-test-summary.mjs reads them for the slowest files.
import { renameSync, writeFileSync } from 'node:fs';

export default class FileDurationsReporter {
  onTestRunEnd(testModules) {
    const out = process.env.JUNOBENCH_TEST_DURATIONS;
    if (!out) return;
    const durations = {};
    for (const m of testModules) durations[m.moduleId] = Math.round(m.diagnostic().duration);
    writeFileSync(`${out}.tmp`, JSON.stringify(durations));
    renameSync(`${out}.tmp`, out);
  }
}
