// @junobench/evaluate: the researcher's flows on one benchmark identity (README, "Score your tool").

export { openInstanceSet, describeInstanceSet } from './open-instance-set.js';
export type { OpenInstanceSetOptions, InstanceSet, LeftOutInstance } from './open-instance-set.js';
export { exportBenchmarkTasks } from './export-benchmark-tasks.js';
export type { ExportBenchmarkTasksOptions, ExportBenchmarkTasksReport, TaskContext } from './export-benchmark-tasks.js';
export { scoreTools, readJunobenchVersion } from './score-tools.js';
export type { ScoreToolsOptions, ScoreToolsResult } from './score-tools.js';
export { readTasksOfSet } from './read-tasks-of-set.js';
export { readLeaderboard } from './read-leaderboard.js';
export type { LeaderboardData } from './read-leaderboard.js';
