#!/usr/bin/env node
// The junobench binary. The workspace runs its TypeScript sources directly
// (no build step between an edit and a run): tsx registers the loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
