import { writeJsonAtomic, type InstanceVerification, type VerificationReport } from '@junobench/core';

/** The report of a verification: the instances in the order given, and their totals per status. Pure. */
export function planVerificationReport(
  runtime: VerificationReport['runtime'],
  instances: InstanceVerification[],
): VerificationReport {
  const count = (status: InstanceVerification['status']) => instances.filter((v) => v.status === status).length;
  return {
    runtime,
    summary: {
      total: instances.length,
      verified: count('verified'),
      notVerified: count('not-verified'),
      skipped: count('skipped'),
      flaky: count('flaky'),
      ...(count('draft') > 0 ? { drafts: count('draft') } : {}),
    },
    instances,
  };
}

/**
 * Write `verify --json <file>` (schemas/verification.schema.json), checked first: a report that drifted from its
 * documented format is an internal error (exit 70) and no file, never a file that `release prepare`, `build` or
 * the user's tools then misread.
 */
export async function writeVerificationReport(file: string, report: VerificationReport): Promise<void> {
  await writeJsonAtomic(file, report, { schema: 'verification' });
}
