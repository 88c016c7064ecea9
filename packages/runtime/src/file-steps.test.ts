import { describe, expect, it } from 'vitest';
import { FileSteps, within } from './file-steps.js';

describe('FileSteps', () => {
  it('runs steps one at a time, in order, and reports a failed step without breaking the chain', async () => {
    const order: string[] = [];
    const errors: unknown[] = [];
    const steps = new FileSteps(
      (e) => errors.push(e),
      () => false,
    );
    steps.step(async () => {
      await new Promise((r) => setTimeout(r, 20));
      order.push('slow');
    });
    steps.step(() => Promise.reject(new Error('disk full')));
    steps.step(async () => {
      order.push('after');
    });
    await steps.drained();
    expect(order).toEqual(['slow', 'after']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['disk full']);
  });

  it('skips the steps left once halted', async () => {
    let halted = false;
    const ran: number[] = [];
    const steps = new FileSteps(
      () => undefined,
      () => halted,
    );
    steps.step(async () => {
      ran.push(1);
      halted = true;
    });
    steps.step(async () => {
      ran.push(2);
    });
    await steps.drained();
    expect(ran).toEqual([1]);
  });

  it('says which step is overdue, and nothing once it has ended', async () => {
    let now = 1000;
    let release!: () => void;
    const steps = new FileSteps(
      () => undefined,
      () => false,
      () => now,
    );
    steps.step(async () => {
      steps.doing('copying /i to a scratch folder');
      await new Promise<void>((r) => (release = r));
    });
    await new Promise((r) => setTimeout(r, 0));
    now = 1000 + 5_000;
    expect(steps.overdue(10_000)).toBeUndefined();
    now = 1000 + 12_400;
    expect(steps.overdue(10_000)).toBe('copying /i to a scratch folder has not finished after 12 s');
    release();
    await steps.drained();
    expect(steps.overdue(10_000)).toBeUndefined();
  });
});

describe('within', () => {
  it('passes a settled promise through and names what did not settle in time', async () => {
    await expect(within(Promise.resolve(3), 1000, 'x')).resolves.toBe(3);
    await expect(within(new Promise(() => undefined), 30, 'removing the scratch folders')).rejects.toThrow(
      'removing the scratch folders has not finished after 0 s',
    );
    await expect(within(Promise.resolve('y'), Number.POSITIVE_INFINITY, 'z')).resolves.toBe('y');
  });
});
