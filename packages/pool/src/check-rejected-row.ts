import { validateOrThrow, type PoolReject } from '@junobench/core';

/**
 * A row that could not become a CrashRecord, with everything it held: one line of the rejects file
 * (schemas/pool-reject.schema.json).
 */
export type RejectedRow = PoolReject;

/**
 * The reject as it is written, checked first against pool-reject: a line that drifted from its documented format
 * is an internal error (exit 70) naming the rejects file and its line, and the import writes nothing.
 */
export function checkRejectedRow(rejected: RejectedRow, location: { file: string; line: number }): RejectedRow {
  return validateOrThrow<RejectedRow>('pool-reject', rejected, location, 'E_INTERNAL');
}
