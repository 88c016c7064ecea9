/**
 * The exception class without its module: `tensorflow.python.framework.errors_impl.InvalidArgumentError` →
 * `InvalidArgumentError`, `pandas.errors.IntCastingNaNError` → `IntCastingNaNError`. The class name is what is
 * labelled; where the class lives moves between library versions. Verification matches crashes by it, and scoring
 * compares a detect answer's exception by it.
 */
export function normalizeEname(ename: string): string {
  const trimmed = ename.trim();
  return trimmed.slice(trimmed.lastIndexOf('.') + 1);
}
