#!/usr/bin/env node
// The junobench binary. The workspace runs its TypeScript sources directly
// (no build step between an edit and a run): tsx registers the loader.
import { register } from 'tsx/esm/api';

register();
try {
  const { main } = await import('../src/main.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  // Loading the CLI itself failed (a broken install): an internal error, 70
  // like any other, never 1 ("the work ran and found failures").
  process.stderr.write(`internal error: could not start junobench: ${e?.message ?? e}\n`);
  process.exitCode = 70;
}
