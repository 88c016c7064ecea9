import { describe, expect, it } from 'vitest';
import { MAX_RESTARTS, planNextRunner, splitRestarted, type Pending } from './pending-runs.js';

const p = (run: number, suspicions = 0, restarts = 0): Pending => ({ run, suspicions, restarts });

describe('planNextRunner', () => {
  it('gives every pending run to one runner with all jobs while no run is suspect', () => {
    const pending = [p(0), p(1), p(2)];
    expect(planNextRunner(pending, 4)).toEqual({ take: pending, jobs: 4 });
    expect(planNextRunner(pending, 0).jobs).toBe(1);
  });

  it('runs the suspects alone, one job, before the others', () => {
    expect(planNextRunner([p(0), p(1, 1), p(2), p(3, 2)], 4)).toEqual({ take: [p(1, 1), p(3, 2)], jobs: 1 });
  });
});

describe('splitRestarted', () => {
  it(`gives up on a run the runner died on more than ${MAX_RESTARTS} times before it started`, () => {
    const back = [p(0, 0, MAX_RESTARTS), p(1, 0, MAX_RESTARTS + 1), p(2, 1, 0)];
    expect(splitRestarted(back)).toEqual({ again: [back[0], back[2]], givenUp: [back[1]] });
  });
});
