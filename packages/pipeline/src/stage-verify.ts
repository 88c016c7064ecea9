import path from 'node:path';
import type { Runtime } from '@junobench/runtime';
import type { Stage } from './run-build.js';

export interface VerifyStageOptions {
  instancesDir: string;
  output: string;
  cacheDir: string;
  jobs?: number;
  /** The runtime is created only when the stage actually runs (or needs its fingerprint). */
  runtime: () => Promise<Runtime>;
}

/** Verify every instance into curated/verification.json (per-instance results cached by content hash). */
export function createVerifyStage(o: VerifyStageOptions): Stage {
  return {
    name: 'verify',
    description: 'execute every instance: reproduced crashes as labelled, fixed runs',
    inputs: [o.instancesDir],
    outputs: [o.output],
    params: { jobs: null },
    environment: async () => {
      const rt = await o.runtime();
      return rt.fingerprint ? rt.fingerprint() : rt.kind;
    },
    async run(io) {
      // Loaded when the stage runs: a build with nothing to do never pays for it.
      const { verifyInstances, writeVerificationReport } = await import('@junobench/verify');
      const runtime = await o.runtime();
      const report = await verifyInstances({
        instancesDir: io.abs(o.instancesDir),
        runtime,
        cacheDir: io.abs(o.cacheDir),
        ...(o.jobs ? { jobs: o.jobs } : {}),
        onProgress: io.onProgress,
      });
      // Checked against its schema first: a drifted report is a bug (exit 70), never a curated file.
      await writeVerificationReport(io.abs(o.output), report);
      const s = report.summary;
      const bad = report.instances
        .filter((v) => v.status === 'not-verified' || v.status === 'flaky')
        .map((v) => v.instance);
      return {
        summary: `${s.verified}/${s.total} verified, ${s.skipped} skipped, ${s.notVerified} not verified, ${s.flaky} flaky (${runtime.kind}) → ${path.normalize(o.output)}${bad.length > 0 ? `; not verified: ${bad.join(', ')}` : ''}`,
        failed: bad.length > 0,
      };
    },
  };
}
