/** A run of the local runtime that no runner has finished yet. */
export interface Pending {
  /** The run's index in the runs given to run(); the runner's plan id is its decimal string. */
  run: number;
  /** Times the run was executing when a runner died with others executing too. */
  suspicions: number;
  /** Runner deaths this run survived without having started: bounded, so a runner that cannot start ends the run. */
  restarts: number;
}

/** How many times a runner may die before a run it never started is given up on. */
export const MAX_RESTARTS = 3;

/**
 * Which pending runs the next runner process takes, and with how many jobs.
 * While all goes well, all of them. When a runner died with several notebooks
 * executing, the suspects, one at a time in a runner of their own, so the one
 * that kills it is blamed and the others are not.
 */
export function planNextRunner(pending: readonly Pending[], jobs: number): { take: Pending[]; jobs: number } {
  const suspects = pending.filter((p) => p.suspicions > 0);
  return suspects.length > 0 ? { take: suspects, jobs: 1 } : { take: [...pending], jobs: Math.max(1, jobs) };
}

/** What a runner that ended gives back: runs to run again, and runs its deaths kept from ever starting (given up on). */
export function splitRestarted(back: readonly Pending[]): { again: Pending[]; givenUp: Pending[] } {
  return {
    again: back.filter((p) => p.restarts <= MAX_RESTARTS),
    givenUp: back.filter((p) => p.restarts > MAX_RESTARTS),
  };
}
