/**
 * The binary exits 130/143 on Ctrl-C/SIGTERM (bin/junobench.js) unless the
 * command handles the signal itself — a worker draining its jobs, a queued
 * run taking its jobs back. Such a command's listener carries this mark.
 * Counting listeners instead does not work: libraries add their own (execa's
 * child cleanup, through signal-exit), which step aside while others listen,
 * so with both stepping aside the signal was ignored.
 */
export const HANDLES_SIGNAL = Symbol.for('junobench.handlesSignal');

/** Handle SIGINT and SIGTERM in this command (the binary's default stands aside); returns the way to stop. */
export function handleSignals(handler: (signal: NodeJS.Signals) => void, options: { once?: boolean } = {}): () => void {
  const listener = Object.assign((signal: NodeJS.Signals) => handler(signal), { [HANDLES_SIGNAL]: true });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    if (options.once) process.once(signal, listener);
    else process.on(signal, listener);
  }
  return () => {
    process.off('SIGINT', listener);
    process.off('SIGTERM', listener);
  };
}
