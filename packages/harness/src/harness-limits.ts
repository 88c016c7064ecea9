/** The limits of `junobench serve` (README, "An agent in the notebook"). */
export interface HarnessLimits {
  /** Seconds the new code of one run_cell or inspect may take (beyond the replay of the session's cells). */
  callTimeoutSeconds: number;
  /** Tool calls one session may make (submit is always allowed). */
  maxCalls: number;
  /** Seconds a session may stay open; afterwards only submit is accepted. */
  sessionSeconds: number;
  /**
   * Seconds a session may go without a call (counted from the end of its last one) before it is closed: its runtime
   * and scratch folder go, and a later call is told why. A client that went away does not hold a session slot, a
   * sandbox folder and a runtime until the session's wall time.
   */
  idleSeconds: number;
  /** Sessions open at once. */
  maxSessions: number;
  /** Characters of code or cell source one call may send. */
  maxCodeChars: number;
}

export const DEFAULT_HARNESS_LIMITS: HarnessLimits = {
  callTimeoutSeconds: 120,
  maxCalls: 200,
  sessionSeconds: 3600,
  idleSeconds: 900,
  maxSessions: 4,
  maxCodeChars: 100_000,
};

/** What one run_cell returns of the output it printed: more is cut, with a note. */
export const MAX_OUTPUT_CHARS = 20_000;
/** The longest answer one submit may send, as JSON. */
export const MAX_ANSWER_CHARS = 5_000_000;
