import type { RunResult } from '@junobench/core';
import { parseTraceback } from '@junobench/notebook';

/** Where the crashing notebook crashed, as its run showed it: what the mutants are placed by. */
export interface CrashSite {
  /** 1-based line of the crash cell's statement that raised (the cell's own frame in the traceback). */
  line?: number;
  /** The first library function below the notebook's own frames: the library call that raised. */
  libraryCall?: { module: string; qualname: string };
}

/**
 * The crash site from the crashing notebook's run: undefined when the run did not end with an error in `crashCell`
 * (the instance does not crash as labelled here, so no mutant can be placed).
 */
export function readCrashSite(result: RunResult | undefined, crashCell: number): CrashSite | undefined {
  const failed = result?.cells.find((c) => c.status === 'error');
  if (!failed || failed.index !== crashCell) return undefined;
  const tb = parseTraceback(failed.traceback ?? [], { ename: failed.ename ?? '', evalue: failed.evalue ?? '' });
  const site: CrashSite = {};
  // The outermost frame is the cell's own code; deeper user frames are functions it called.
  const cellFrame = tb.frames.find((f) => f.kind === 'user');
  if (cellFrame?.line !== undefined) site.line = cellFrame.line;
  const lastUser = tb.frames.map((f) => f.kind).lastIndexOf('user');
  const call = tb.frames.slice(lastUser + 1).find((f) => f.kind === 'library');
  const qualname = call?.function?.split('(')[0]?.trim();
  if (call?.module && qualname && /^[A-Za-z_][\w.]*$/.test(qualname))
    site.libraryCall = { module: call.module, qualname };
  return site;
}
