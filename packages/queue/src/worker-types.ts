import type { QueueWorker, RunResult, RuntimeIdentity } from '@junobench/core';

/** What a job answers: the runner's result or the runtime's identity, and who produced it. */
export interface QueueJobAnswer {
  worker: string;
  group: string;
  result?: RunResult;
  identity?: RuntimeIdentity;
  /** Set by the coordinator, never by a worker: the run was given up on (see jobGraceSeconds). */
  givenUp?: true;
}

export type WorkerEvent =
  | { type: 'ready'; worker: QueueWorker; queue: string }
  | { type: 'job-done'; id: string; status: RunResult['status']; durationMs: number }
  | { type: 'job-error'; id: string; error: string }
  | { type: 'job-returned'; id: string }
  | { type: 'connection-lost'; error: string }
  | { type: 'connection-restored' }
  | { type: 'stopping'; mode: 'finish' | 'return'; running: number };
