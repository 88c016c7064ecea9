// @junobench/queue: named exports only (docs/design.md, "Style").
export { createQueueRuntime, DEFAULT_BLOB_LIMIT_BYTES } from './queue-runtime.js';
export type { QueueRuntime, QueueRuntimeOptions, QueueRunStats } from './queue-runtime.js';
export { runWorker, DEFAULT_PREFIX } from './run-worker.js';
export type { WorkerOptions, WorkerEvent, WorkerHandle, WorkerStats, QueueJobAnswer } from './run-worker.js';
export { parseRedisUrl } from './redis-url.js';
export type { RedisAddress } from './redis-url.js';
export { readInstanceManifest, planTreeHash, checkBlobLimit } from './instance-manifest.js';
export type { InstanceManifest } from './instance-manifest.js';
export { writeBlobs, openBlobCache, blobKey, BLOB_TTL_SECONDS } from './blob-store.js';
export type { BlobCache, BlobUploadStats } from './blob-store.js';
export { createRunBatcher } from './run-batcher.js';
export type { RunBatcher } from './run-batcher.js';
export {
  planWorkerGroup,
  planWorkerGroups,
  planQueueName,
  describeWorkerGroup,
  readLiveWorkers,
  QUEUE_PROTOCOL,
} from './worker-registry.js';
export type { WorkerGroup } from './worker-registry.js';
