import type { Command } from 'commander';
import type { CliContext } from '../context.js';

// Each verb group lives in its own file and registers itself here, so the
// command groups can grow independently.
export function registerCommands(program: Command, ctx: CliContext): void {
  void program;
  void ctx;
}
