import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_DELAY_MS, startLongTimer } from './start-long-timer.js';

// Fake timers behave like Node's here: a plain setTimeout over 2^31-1 ms fires after 1 ms.
describe('startLongTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it.each([
    ['a short delay', 5_000],
    ['just under the limit', MAX_TIMER_DELAY_MS],
    ['just over the limit', MAX_TIMER_DELAY_MS + 1],
    ["an instance's 1e9 s (31 years)", 1e9 * 1000 + 90_000],
  ])('%s fires once, at its delay and not before', (_name, ms) => {
    const fn = vi.fn();
    startLongTimer(ms, fn);
    vi.advanceTimersByTime(1);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(ms - 2);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10 * MAX_TIMER_DELAY_MS);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('a plain setTimeout does overflow under these timers (what the helper is for)', () => {
    const fn = vi.fn();
    setTimeout(fn, MAX_TIMER_DELAY_MS + 1);
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('cancel stops it, also after it has re-armed', () => {
    const fn = vi.fn();
    const t = startLongTimer(3 * MAX_TIMER_DELAY_MS, fn);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS + 10);
    t.cancel();
    t.cancel();
    vi.advanceTimersByTime(5 * MAX_TIMER_DELAY_MS);
    expect(fn).not.toHaveBeenCalled();
  });

  it('zero or a negative delay fires on the next turn; Infinity never; NaN is refused', () => {
    const fn = vi.fn();
    startLongTimer(0, fn);
    startLongTimer(-5, fn);
    const never = vi.fn();
    startLongTimer(Infinity, never);
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(100 * MAX_TIMER_DELAY_MS);
    expect(never).not.toHaveBeenCalled();
    expect(() => startLongTimer(Number.NaN, fn)).toThrow(RangeError);
  });
});
