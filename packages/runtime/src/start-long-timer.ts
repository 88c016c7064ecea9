/**
 * The longest delay Node's setTimeout honours: a longer one (or a non-number)
 * fires after 1 ms, with only a TimeoutOverflowWarning on stderr.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export interface LongTimer {
  /** Never fires after this. Idempotent. */
  cancel(): void;
}

/**
 * setTimeout for any delay: a limit that comes from data (an instance's
 * `timeoutSeconds`, a command-line flag) may exceed 24.8 days, and a plain
 * setTimeout would then fire at once — a notebook reported `timeout` after a
 * millisecond. The timer re-arms in steps of at most MAX_TIMER_DELAY_MS until
 * the whole delay has passed; an infinite delay never fires. The delay must
 * not be NaN (a caller's bug: there is no safe reading of it).
 */
export function startLongTimer(ms: number, fn: () => void, options: { unref?: boolean } = {}): LongTimer {
  if (Number.isNaN(ms)) throw new RangeError('startLongTimer: the delay is NaN');
  let handle: NodeJS.Timeout | undefined;
  let cancelled = false;
  const arm = (remaining: number) => {
    if (cancelled || remaining === Infinity) return;
    const step = Math.min(Math.max(remaining, 0), MAX_TIMER_DELAY_MS);
    handle = setTimeout(() => {
      handle = undefined;
      if (cancelled) return;
      if (remaining > step) arm(remaining - step);
      else fn();
    }, step);
    if (options.unref) handle.unref?.();
  };
  arm(ms);
  return {
    cancel() {
      cancelled = true;
      if (handle) clearTimeout(handle);
      handle = undefined;
    },
  };
}
