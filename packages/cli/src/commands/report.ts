import type { Command } from 'commander';
import type { CliContext } from '../context.js';

// Verbs: report (issue 15). Library packages are imported inside each action
// (`await import('@junobench/...')`) so that other commands do not pay for loading them.
export function registerReportCommands(_program: Command, _ctx: CliContext): void {}
