import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { registerPoolCommand } from './pool.js';
import { registerVerifyCommand } from './verify.js';
import { registerSubsampleCommand } from './subsample.js';
import { registerLabelsCommand } from './labels.js';
import { registerStatsCommand } from './stats.js';
import { registerImageCommand } from './image.js';
import { registerBuildCommand } from './build.js';
import { registerSourcesCommands } from './sources.js';
import { registerAddCommand } from './add.js';
import { registerReleaseCommands } from './release.js';
import { registerDeprecateCommand } from './deprecate.js';
import { registerTasksCommand } from './tasks.js';
import { registerBaselineCommand } from './baseline.js';
import { registerScoreCommands } from './score.js';
import { registerWorkerCommands } from './worker.js';
import { registerReportCommands } from './report.js';
import { registerChecksCommands } from './checks.js';
import { registerServeCommand } from './serve.js';

// Each verb group lives in its own file and registers itself here, so the
// command groups can grow independently.
export function registerCommands(program: Command, ctx: CliContext): void {
  registerPoolCommand(program, ctx);
  registerVerifyCommand(program, ctx);
  registerSubsampleCommand(program, ctx);
  registerLabelsCommand(program, ctx);
  registerStatsCommand(program, ctx);
  registerImageCommand(program, ctx);
  registerBuildCommand(program, ctx);
  registerSourcesCommands(program, ctx);
  registerAddCommand(program, ctx);
  registerReleaseCommands(program, ctx);
  registerDeprecateCommand(program, ctx);
  registerTasksCommand(program, ctx);
  registerBaselineCommand(program, ctx);
  registerScoreCommands(program, ctx);
  registerWorkerCommands(program, ctx);
  registerReportCommands(program, ctx);
  registerChecksCommands(program, ctx);
  registerServeCommand(program, ctx);
}
