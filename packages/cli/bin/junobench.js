#!/usr/bin/env node
// The junobench binary. It runs the compiled CLI (packages/cli/dist/, made by
// tools/build-cli.mjs at `npm ci`) while that was built from exactly the
// sources on disk, and the TypeScript sources through tsx otherwise, so an edit
// is live at once and compiled code is never stale. JUNOBENCH_CLI=tsx forces
// the sources, JUNOBENCH_CLI=compiled the compiled CLI (exit 3 when it is
// missing or out of date); JUNOBENCH_DEBUG=1 says on stderr which one runs.
import { pathToFileURL } from 'node:url';
import { checkCompiledCli } from './compiled-cli.js';

// Ctrl-C or SIGTERM: exit with the conventional status, so that the 'exit'
// hooks run — temporary output files and run folders are removed, child
// processes are ended, and no output was written half. A command that handles
// the signal itself (a worker draining its jobs, a queued run taking its jobs
// back) marks its listener (src/signals.ts) and is left to it. Unmarked
// listeners do not count: execa's child cleanup adds one that steps aside
// while others listen, so counting listeners ignored the signal.
const HANDLES_SIGNAL = Symbol.for('junobench.handlesSignal');
const onSignal = (signal) => {
  if (process.listeners(signal).some((l) => l !== onSignal && l[HANDLES_SIGNAL])) return;
  process.stderr.write(`\njunobench: interrupted (${signal}); outputs not complete were not written\n`);
  process.exit(signal === 'SIGINT' ? 130 : 143);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const mode = process.env.JUNOBENCH_CLI;
const debug = Boolean(process.env.JUNOBENCH_DEBUG);
const compiled = mode === 'tsx' ? { fresh: false, reason: 'JUNOBENCH_CLI=tsx' } : checkCompiledCli();

if (mode === 'compiled' && !compiled.fresh) {
  process.stderr.write(`error: JUNOBENCH_CLI=compiled, but ${compiled.reason}\n  hint: npm run build:cli\n`);
  process.exitCode = 3;
} else {
  try {
    let main;
    if (compiled.fresh) {
      if (debug) {
        process.setSourceMapsEnabled(true);
        process.stderr.write(`junobench: running the compiled CLI (${compiled.entry})\n`);
      }
      ({ main } = await import(pathToFileURL(compiled.entry).href));
    } else {
      if (debug) process.stderr.write(`junobench: running the TypeScript sources through tsx (${compiled.reason})\n`);
      else if (process.stderr.isTTY && mode !== 'tsx') {
        // Only on a terminal: pipes, tests and CI get exactly the command's own output.
        process.stderr.write(
          `junobench: ${compiled.reason}: running the sources (slower start; \`npm run build:cli\` compiles them)\n`,
        );
      }
      const { register } = await import('tsx/esm/api');
      register();
      ({ main } = await import('../src/main.ts'));
    }
    process.exitCode = await main(process.argv.slice(2));
  } catch (e) {
    // Loading the CLI itself failed (a broken install): an internal error, 70
    // like any other, never 1 ("the work ran and found failures").
    process.stderr.write(`internal error: could not start junobench: ${e?.message ?? e}\n`);
    process.exitCode = 70;
  }
}
