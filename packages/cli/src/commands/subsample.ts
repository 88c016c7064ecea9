import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function registerSubsampleCommand(program: Command, ctx: CliContext): void {
  void program;
  void ctx;
}
