import { canonicalLibrary, suggestClosest, VOCABULARIES, type LabelDimension } from '@junobench/core';

/** How each label dimension is named for people (tables, messages, charts). */
export const DIMENSION_TITLES: Record<LabelDimension, string> = {
  library: 'library cause',
  crashType: 'crash type',
  rootCause: 'root cause',
  pipelineStage: 'pipeline stage',
};

/**
 * Why `value` is not a label of `dimension`, with a "did you mean", or
 * undefined when it is one. Labels must be the exact vocabulary value
 * (README, "Formats": label vocabularies): near misses (`API Misuse`, `tensor-shape mismatch`) and
 * library aliases (`tensorflow`, `keras`, `NBspecific`) are rejected with the
 * canonical value suggested, so that agreement is never inflated or deflated
 * by spelling.
 */
export function checkLabelValue(dimension: LabelDimension, value: string): string | undefined {
  const allowed = VOCABULARIES[dimension];
  if (allowed.includes(value)) return undefined;
  const suggestion = (dimension === 'library' ? canonicalLibrary(value) : undefined) ?? suggestClosest(value, allowed);
  const didYouMean = suggestion !== undefined ? ` did you mean "${suggestion}"?` : '';
  return `${JSON.stringify(value)} is not a ${DIMENSION_TITLES[dimension]};${didYouMean} allowed: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;
}
