export {
  verifyInstances,
  verifyInstanceDir,
  summarize,
  planPrewarm,
  VERIFY_LOGIC_VERSION,
} from './verify-instances.js';
export type { VerifyOptions } from './verify-instances.js';
export { planVerificationReport, writeVerificationReport } from './write-verification-report.js';
export { classifyReproduced, classifyFixed, skippedEnv, observedError } from './classify-outcome.js';
export type { NotebookVersionName } from './classify-outcome.js';
export { matchExpectedCrash, evalueMatches } from './match-crash.js';
export type { CrashMatch, ObservedError } from './match-crash.js';
