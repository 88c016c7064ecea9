/**
 * Progress of long work, reported by libraries through a callback; only the
 * CLI turns it into bars or lines. `total` is unknown while streaming.
 */
export interface ProgressEvent {
  /** The stage or task, e.g. "pool import", "verify". */
  task: string;
  done: number;
  total?: number;
  /** The item just finished or a short status, e.g. an instance id. */
  item?: string;
  message?: string;
}

export type ProgressListener = (event: ProgressEvent) => void;

export const noProgress: ProgressListener = () => undefined;
