/** The limits of `junobench serve` (README, "An agent in the notebook"). */
export interface HarnessLimits {
  /** Seconds the new code of one run_cell or inspect may take (beyond the replay of the session's cells). */
  callTimeoutSeconds: number;
  /** Tool calls one session may make (submit is always allowed). */
  maxCalls: number;
  /** Seconds a session may stay open; afterwards only submit is accepted. */
  sessionSeconds: number;
  /** Sessions open at once. */
  maxSessions: number;
  /** Characters of code or cell source one call may send. */
  maxCodeChars: number;
}

export const DEFAULT_HARNESS_LIMITS: HarnessLimits = {
  callTimeoutSeconds: 120,
  maxCalls: 200,
  sessionSeconds: 3600,
  maxSessions: 4,
  maxCodeChars: 100_000,
};

/** What one run_cell returns of the output it printed: more is cut, with a note. */
export const MAX_OUTPUT_CHARS = 20_000;
/** The longest answer one submit may send, as JSON. */
export const MAX_ANSWER_CHARS = 5_000_000;
