/** One dimension's suggestion before its confidence is attached: the value, the rule that chose it, and why. */
export interface RuleDecision<V extends string> {
  value: V;
  /** Stable id of the rule that decided; its measured hit rate is the confidence (rule-confidence.ts). */
  rule: string;
  evidence: string[];
}

export function decide<V extends string>(value: V, rule: string, ...evidence: string[]): RuleDecision<V> {
  return { value, rule, evidence };
}

export function truncate(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n)}…` : one;
}
