import { defineConfig } from 'vitest/config';

// One suite for everything: unit tests, kernel tests (*.kernel.test.ts) and
// container tests (*.container.test.ts) run together in `npm test`; the
// `unit` project leaves the slow ones out for a quick inner loop.
// kernel: a real Jupyter kernel; container: the engine; redis, registry,
// browser: those real servers; e2e: the CLI end to end.
const slow = [
  '**/*.kernel.test.ts',
  '**/*.container.test.ts',
  '**/*.redis.test.ts',
  '**/*.registry.test.ts',
  '**/*.browser.test.ts',
  '**/*.e2e.test.ts',
];

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts', 'tools/**/*.test.ts'],
          exclude: [...slow, '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'slow',
          include: slow.map((g) => g.replace('**/', '{packages/*/src,test}/**/')),
          exclude: ['**/node_modules/**'],
          testTimeout: 600_000,
          hookTimeout: 2_400_000,
          // Kernels and containers compete for the same few cores: one slow
          // file at a time keeps their time limits meaningful on small machines.
          fileParallelism: false,
        },
      },
    ],
  },
});
