// @junobench/evaluate: the researcher's flows on one benchmark identity (README, "Score your tool").

export { openInstanceSet, describeInstanceSet } from './open-instance-set.js';
export type { OpenInstanceSetOptions, InstanceSet, LeftOutInstance } from './open-instance-set.js';
