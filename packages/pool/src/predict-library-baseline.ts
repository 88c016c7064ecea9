import type { CrashRecord, LibraryName } from '@junobench/core';

// The keywords of the original JunoBench heuristic: module names and their
// usual aliases, counted wherever they appear in the traceback text.
const KEYWORDS: ReadonlyArray<readonly [LibraryName, readonly string[]]> = [
  ['tensorflow/keras', ['tensorflow', 'keras', 'tf']],
  ['torch', ['torch', 'nn']],
  ['torchvision', ['torchvision']],
  ['sklearn', ['sklearn']],
  ['numpy', ['numpy', 'np']],
  ['pandas', ['pandas', 'pd']],
  ['matplotlib', ['matplotlib', 'plt']],
  ['seaborn', ['seaborn', 'sns']],
  ['statsmodels', ['statsmodels', 'sm']],
  ['lightgbm', ['lightgbm', 'lgb']],
  ['xgboost', ['xgboost', 'xgb']],
  ['catboost', ['catboost']],
  ['scipy', ['scipy']],
  ['cv2', ['cv2']],
  ['transformers', ['transformers']],
  ['PIL', ['PIL']],
];

const PATTERNS = KEYWORDS.map(([lib, words]) => [lib, new RegExp(`\\b(?:${words.join('|')})\\b`, 'g')] as const);

/**
 * The original JunoBench baseline, kept to compare against: count library
 * keywords over the whole traceback, with the arrowed (crashing) lines
 * weighted three times; the most frequent library wins, None when no keyword
 * appears. Ties go to the library listed first.
 */
export function predictLibraryBaseline(record: CrashRecord): LibraryName {
  const lines = record.traceback.flatMap((t) => t.split('\n'));
  const scores = new Map<LibraryName, number>();
  for (const line of lines) {
    const weight = /^\s*-*>/.test(line) ? 3 : 1;
    for (const [lib, re] of PATTERNS) {
      const n = line.match(re)?.length ?? 0;
      if (n > 0) scores.set(lib, (scores.get(lib) ?? 0) + n * weight);
    }
  }
  let best: LibraryName = 'None';
  let bestScore = 0;
  for (const [lib] of KEYWORDS) {
    const s = scores.get(lib) ?? 0;
    if (s > bestScore) {
      best = lib;
      bestScore = s;
    }
  }
  return best;
}
