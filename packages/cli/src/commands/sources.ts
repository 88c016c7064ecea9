import type { Command } from 'commander';
import type { CliContext } from '../context.js';

// Verbs: collect kaggle|github, sources fetch, add (issue 9). Library packages are imported inside each action
// (`await import('@junobench/...')`) so that other commands do not pay for loading them.
export function registerSourcesCommands(_program: Command, _ctx: CliContext): void {}
