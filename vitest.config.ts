import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One suite for everything: unit tests, kernel tests (*.kernel.test.ts), container tests (*.container.test.ts) and
// the rest of the slow ones run together in `npm test`; the `unit` project leaves the slow ones out for a quick inner
// loop. kernel: a real Jupyter kernel; container: the engine; redis, registry, browser: those real servers; e2e: the
// CLI end to end.
//
// `npm test` runs three lanes at once (tools/run-test-lanes.mjs): `unit` and `slow` (most e2e files) in one vitest
// process; `containers` and `slow-paired` (two long e2e files) in a second; `services` (the kernel, Redis and browser
// files, and the e2e files that read the suite's build of the embedded raw/) in a third. Inside a lane the slow files
// run one at a time (vitest puts every file of a project that is not file-parallel into one sequence, across
// projects), so at most three slow files share the machine.
//
// Why three: with two lanes the suite took 27 minutes while the machine's two cores were busy only 57% of the time
// (the tests wait on kernels, containers and child processes more than they compute). The lanes' lengths, from the
// files' times in that run: unit + slow about 17 minutes, containers + slow-paired about 17, services about 14.
// Every file that reads test/suite-build.ts's build is in the services lane, so the lane that makes the build is the
// one that needs it. No file checks the machine as a whole: the process checks look at a test's own descendants,
// the Redis files use their own key prefixes (the restart test its own server).
const testDir = fileURLToPath(new URL('./test/', import.meta.url));
const usesSuiteBuild = readdirSync(testDir)
  .filter(
    (f) => f.endsWith('.e2e.test.ts') && readFileSync(path.join(testDir, f), 'utf8').includes("'./suite-build.js'"),
  )
  .map((f) => `test/${f}`);
const slow = ['**/*.e2e.test.ts'];
// The e2e files that run beside the container files, in the containers lane: the longest ones that do not read the
// suite's build, chosen so that the three lanes take about as long.
const pairedWithContainers = ['test/maintainer-session.e2e.test.ts', 'test/score-cli.e2e.test.ts'];
const services = ['**/*.kernel.test.ts', '**/*.redis.test.ts', '**/*.browser.test.ts'];
// The engine's tests, and the registry's (they build and push images).
const containers = ['**/*.container.test.ts', '**/*.registry.test.ts'];
const inTree = (g: string) => g.replace('**/', '{packages/*/src,test}/**/');

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
          // Some start a node or Python process: on a 2-core machine busy with both lanes that takes seconds.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'slow',
          include: slow.map(inTree),
          exclude: [...usesSuiteBuild, ...pairedWithContainers, '**/node_modules/**'],
          ...slowOptions,
        },
      },
      {
        test: {
          name: 'slow-paired',
          include: pairedWithContainers.filter((f) => !usesSuiteBuild.includes(f)),
          exclude: ['**/node_modules/**'],
          ...slowOptions,
        },
      },
      {
        test: {
          name: 'services',
          include: [...services.map(inTree), ...usesSuiteBuild],
          exclude: ['**/node_modules/**'],
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
