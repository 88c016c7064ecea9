// @junobench/score: tasks for debugging tools, a scoring harness that executes repairs, reference baselines.

// Tasks
export { exportTasks, formatTasksJsonl } from './export-tasks.js';
export type { ExportTasksOptions, ExportTasksReport } from './export-tasks.js';
export {
  planTasks,
  hashTaskId,
  planTaskError,
  planCrashingNotebook,
  planRepairExecution,
  planDetectTargets,
  planStateTargets,
  stateKey,
  TASK_KINDS,
  TASK_VOCABULARIES,
  DEFAULT_TASK_SEED,
} from './plan-tasks.js';
export type {
  PlannedTasks,
  PlanTasksOptions,
  TaskKey,
  DetectKey,
  DiagnoseKey,
  RepairKey,
  DetectTarget,
} from './plan-tasks.js';
export { readTaskSources, isAnswerFile, INSTANCE_ANSWER_FILES } from './read-task-sources.js';
export type { TaskSource, SkippedInstance } from './read-task-sources.js';
export {
  renderDetectPrompt,
  renderDiagnosePrompt,
  renderRepairPrompt,
  renderNotebook,
  renderRuntimeState,
  describeExecution,
} from './render-prompt.js';

// Predictions and scoring
export { parsePredictionLines, readPredictions, predictionProblemsError } from './read-predictions.js';
export type { ParsedPrediction, ParsedPredictions, Answer } from './read-predictions.js';
export { rate, pooledRate, scoreClasses, majorityVote, passAtK, planPassKs } from './metrics.js';
export { scoreDetect, scoreDiagnose, scoreRepair, planAttempts, repairSlot } from './score-answers.js';
export { checkRepair, judgeRepair } from './check-repair.js';
export type { RepairCheck, RepairVerdict, RepairExecutionSpec, MissingHow } from './check-repair.js';
export { executeRepairs, planRepairExclusions, planRepairPrewarm } from './execute-repairs.js';
export type { RepairRun, ExecuteRepairsOptions } from './execute-repairs.js';
export {
  scorePredictions,
  runScore,
  readTaskSet,
  buildRepairedNotebook,
  defaultToolName,
} from './score-predictions.js';
export type { TaskSet, ScoreRepairOptions, ScoreResult, RunScoreOptions } from './score-predictions.js';

// Scorecard
export {
  formatScoreSummary,
  renderScorecardMarkdown,
  renderScorecardCharts,
  renderBarChart,
} from './render-scorecard.js';
export type { Bar } from './render-scorecard.js';
export { writeScorecard, listScorecardFiles } from './write-scorecard.js';
export { summarizeTrajectories } from './summarize-trajectories.js';
export type { WriteScorecardOptions } from './write-scorecard.js';

// Baselines
export {
  planOracleAnswers,
  planHeuristicAnswers,
  planHeuristicDiagnosis,
  JUNOBENCH_MAJORITY,
} from './plan-baselines.js';
export type { PredictionLine } from './plan-baselines.js';
export { runBaseline, formatPredictionsJsonl, BASELINES } from './run-baseline.js';
export type { BaselineName, BaselineReport, RunBaselineOptions } from './run-baseline.js';
