import type { Command } from 'commander';
import type { CliContext } from '../context.js';

// Verbs: worker (issue 14). Library packages are imported inside each action
// (`await import('@junobench/...')`) so that other commands do not pay for loading them.
export function registerWorkerCommands(_program: Command, _ctx: CliContext): void {}
