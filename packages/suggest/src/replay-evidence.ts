import { libraryOfModule, type CrashRecord, type LibraryName } from '@junobench/core';
import { predictLibrary, type LibraryPrediction } from './predict-library.js';
import { RULE_CONFIDENCE } from './rule-confidence.js';

/**
 * What a replay of the notebook showed of a crash it reproduced (`add`, after its run): the reading of a saved
 * traceback alone is refined with it.
 */
export interface ReplayEvidence {
  /** The crash reproduced with the cells run once each, top to bottom: it needs no out-of-order state. */
  fileOrder: boolean;
  /** The replay's traceback of the crash. */
  traceback?: readonly string[];
  /** The names the crashing line reads and their types, as the kernel held them just before the crashing cell ran. */
  names?: readonly { name: string; type: string }[];
}

/** Decisions that rest on no frame of a library: the replay may know better. */
const WITHOUT_A_FRAME = new Set(['library.nothing', 'library.stdlib', 'library.implicit', 'library.method']);
/** Decisions by the frames of a traceback. */
const BY_FRAMES = new Set(['library.entry', 'library.entry-same', 'library.callback', 'library.wrapper']);

/**
 * Pure: the library estimate with the replay's evidence, when the saved traceback alone showed no library frame.
 * First the replay's own traceback (the saved one may come from another version, or be cut); then the types of the
 * values the crashing line works on (a generic message raised on NumPy arrays in the notebook's own line is a NumPy
 * crash; on a pandas Series, a pandas one).
 */
export function refineWithReplay(
  prediction: LibraryPrediction,
  record: Pick<CrashRecord, 'ename' | 'evalue' | 'traceback' | 'imports'>,
  replay: ReplayEvidence | undefined,
): LibraryPrediction {
  if (!replay || !WITHOUT_A_FRAME.has(prediction.rule)) return prediction;
  if (replay.traceback && replay.traceback.length > 0) {
    const again = predictLibrary({ ...record, traceback: [...replay.traceback] });
    if (BY_FRAMES.has(again.rule)) {
      return {
        library: again.library,
        confidence: RULE_CONFIDENCE['library.replay-frames'],
        rule: 'library.replay-frames',
        evidence: [`in the replay's traceback, ${again.evidence[0] ?? again.library}`, ...prediction.evidence],
      };
    }
  }
  const typed = (replay.names ?? [])
    .map((n) => ({ ...n, library: libraryOfType(n.type) }))
    .filter((n): n is { name: string; type: string; library: LibraryName } => n.library !== undefined);
  if (typed.length === 0) return prediction;
  const counts = new Map<LibraryName, number>();
  for (const n of typed) counts.set(n.library, (counts.get(n.library) ?? 0) + 1);
  const [library] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
  const on = typed.filter((n) => n.library === library);
  return {
    library,
    confidence: RULE_CONFIDENCE['library.replay-types'],
    rule: 'library.replay-types',
    evidence: [
      `the crashing line works on ${on.map((n) => `${n.name} (${n.type})`).join(', ')} in the replay: ${library} values, with no library frame in the traceback`,
      ...prediction.evidence,
    ],
  };
}

/** The library a value's type belongs to (`numpy.ndarray` → numpy, `pandas.core.frame.DataFrame` → pandas). */
export function libraryOfType(type: string): LibraryName | undefined {
  const module = type.includes('.') ? type.slice(0, type.lastIndexOf('.')) : '';
  if (module === '' || module === 'builtins') return undefined;
  return libraryOfModule(module);
}
