import cliProgress from 'cli-progress';
import type { ProgressEvent, ProgressListener } from '@junobench/core';

/**
 * Progress for long work: a bar on a terminal, and on a pipe or in CI a plain
 * line at most every two seconds (plus the last), so logs stay readable.
 */
export function createProgressReporter(
  task: string,
  options: { interactive: boolean; write: (text: string) => void; intervalMs?: number },
): ProgressListener & { done: () => void } {
  let bar: cliProgress.SingleBar | undefined;
  let lastLine = 0;
  let last: ProgressEvent | undefined;
  let lastPrinted: ProgressEvent | undefined;
  const interval = options.intervalMs ?? 2000;

  const listener = ((e: ProgressEvent) => {
    last = e;
    if (options.interactive && e.total !== undefined) {
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            format: `${e.task || task} [{bar}] {value}/{total} {item}`,
            hideCursor: true,
            clearOnComplete: false,
            stream: process.stderr,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(e.total, e.done, { item: e.item ?? '' });
      }
      bar.setTotal(e.total);
      bar.update(e.done, { item: e.item ?? e.message ?? '' });
      return;
    }
    const now = Date.now();
    if (now - lastLine >= interval) {
      lastLine = now;
      lastPrinted = e;
      options.write(`${formatEvent(e.task || task, e)}\n`);
    }
  }) as ProgressListener & { done: () => void };

  listener.done = () => {
    if (bar) {
      bar.stop();
      bar = undefined;
    } else if (last && last !== lastPrinted) {
      // The final state, when throttling swallowed it.
      options.write(`${formatEvent(last.task || task, last)}\n`);
    }
    last = undefined;
    lastPrinted = undefined;
  };
  return listener;
}

export function formatEvent(task: string, e: ProgressEvent): string {
  const count = e.total !== undefined ? `${e.done}/${e.total}` : `${e.done}`;
  const tail = [e.item, e.message].filter(Boolean).join(' ');
  return `${task}: ${count}${tail ? ` ${tail}` : ''}`;
}
