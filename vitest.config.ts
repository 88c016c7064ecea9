import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One suite for everything: unit tests, kernel tests (*.kernel.test.ts), container tests (*.container.test.ts) and
// the rest of the slow ones run together in `npm test`; the `unit` project leaves the slow ones out for a quick inner
// loop. kernel: a real Jupyter kernel; container: the engine; redis, registry, browser: those real servers; e2e: the
// CLI end to end.
//
// `npm test` runs two lanes at once (tools/run-test-lanes.mjs): `unit` and `slow` (the e2e files) in one vitest
// process, `containers` and `services` (the kernel, Redis and browser files, and the e2e files that read the suite's
// build of the embedded raw/) in another. Inside a lane the slow files run one at a time (vitest puts every file of
// a project that is not file-parallel into one sequence, across projects), so at most two slow files share the
// machine, and their time limits stay meaningful on a 2-core machine.
//
// Why this split: with every non-container slow file in the first lane, it took 28 minutes while the containers lane
// was done after 10 and left a core idle. Now the unit files and the e2e files (about 6 + 13 minutes) run beside
// the containers and the kernel, Redis and browser files (about 10 + 8 minutes). Every file that reads
// test/suite-build.ts's build is in the second lane, so the lane that makes the build is the one that needs it, and
// no lane sits idle while the other builds.
//
// Three lanes were measured too (2026-12-06: the container files with two long e2e files in a lane of their own):
// 27.0 minutes, no faster, with every slow file slower (the Redis file 462 s instead of 240). The two cores are the
// limit, not waiting: the containers' and sandboxes' CPU does not show in the test process's own figures. So was
// building the container tests' image in the background while the lane ran its kernel, Redis and browser files first
// (2026-12-06, fresh engine): 27.3 minutes against 28.0, within a run's noise; the build took 554 s instead of 393 and
// the Redis file 421 s instead of 154. And so was moving the Redis queue file into the first lane, so that the lanes
// end together (2026-12-06, fresh engine): they did (1651 s and 1712 s, against 1319 s and 1665 s), and the run took
// 28.6 minutes against 27.8, the Redis file 251 s instead of 154. No file checks the machine as a whole: the process checks look at a
// test's own descendants, the Redis files use their own key prefixes (the restart test its own server).
const testDir = fileURLToPath(new URL('./test/', import.meta.url));
const usesSuiteBuild = readdirSync(testDir)
  .filter(
    (f) => f.endsWith('.e2e.test.ts') && readFileSync(path.join(testDir, f), 'utf8').includes("'./suite-build.js'"),
  )
  .map((f) => `test/${f}`);
const slow = ['**/*.e2e.test.ts'];
const services = ['**/*.kernel.test.ts', '**/*.redis.test.ts', '**/*.browser.test.ts'];
// The engine's tests, and the registry's (they build and push images).
const containers = ['**/*.container.test.ts', '**/*.registry.test.ts'];
const inTree = (g: string) => g.replace('**/', '{packages/*/src,test}/**/');
// Kernel files that run in the first lane (project `slow`) so that the lanes end together: once the unit files
// shared their workers (below), the first lane ended about 3 minutes before the second (1146 s against 1329 s,
// 2026-12-07), and a core then idled; the first file here closed that gap. Once container runtimes stopped asking
// Podman for its version (container-engine.ts, readEngineKind), the second lane still ended a minute after the first
// (1111 s against 1052 s), hence the other two. None reads a suite build or starts an engine.
const firstLane = [
  'packages/score/src/score-repairs.kernel.test.ts',
  'packages/verify/src/verify-instances.kernel.test.ts',
  'packages/runtime/src/fork-fidelity.kernel.test.ts',
];

const slowOptions = {
  testTimeout: 600_000,
  hookTimeout: 2_400_000,
  fileParallelism: false,
} as const;

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts', 'tools/**/*.test.ts'],
          exclude: [...slow, ...services, ...containers, '**/node_modules/**'],
          // Two at a time: most unit files wait on child processes or the disk, not the CPU.
          maxWorkers: 2,
          // A worker runs file after file with the modules it loaded: a fresh worker per file spent more time importing
          // (vite's transform and our packages' graph) than most unit files spend testing. Measured alone on 2 cores
          // (2026-12-07): 164 s of wall time and 230 s of CPU, against 242 s and 366 s. A file that changes
          // process-wide state (timers, umask, an environment variable) restores it in its own hooks. The slow
          // projects stay isolated: their files check that they leave no process behind, and a worker shared with an
          // earlier file would see its leftovers.
          isolate: false,
          // Some start a node or Python process: on a 2-core machine busy with both lanes that takes seconds.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'slow',
          include: [...slow.map(inTree), ...firstLane],
          exclude: [...usesSuiteBuild, '**/node_modules/**'],
          ...slowOptions,
        },
      },
      {
        test: {
          name: 'services',
          include: [...services.map(inTree), ...usesSuiteBuild],
          exclude: [...firstLane, '**/node_modules/**'],
          ...slowOptions,
        },
      },
      {
        test: {
          name: 'containers',
          include: containers.map(inTree),
          exclude: ['**/node_modules/**'],
          // One image for every container test of the run (the benchmark image of the embedded instances).
          globalSetup: ['test/containers-global-setup.ts'],
          ...slowOptions,
        },
      },
    ],
  },
});
