import type { Command } from 'commander';
import type { CliContext } from '../context.js';

// Verbs: release prepare|verify|publish, deprecate (issue 10). Library packages are imported inside each action
// (`await import('@junobench/...')`) so that other commands do not pay for loading them.
export function registerReleaseCommands(_program: Command, _ctx: CliContext): void {}
