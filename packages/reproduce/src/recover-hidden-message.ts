/** Messages a platform saves in place of the real one (Colab writes "ignored"). */
const HIDDEN = new Set(['ignored', '<hidden>', '']);

/**
 * Pure: the crash's message, taken from the traceback's last line when the
 * saved `evalue` hides it (Colab saves "ignored"); null when it is not hidden
 * or the traceback does not show it either.
 */
export function recoverHiddenMessage(crash: {
  ename: string;
  evalue: string;
  traceback: readonly string[];
}): string | null {
  if (!HIDDEN.has(crash.evalue.trim())) return null;
  const ename = crash.ename.split('.').pop()!;
  const lines = crash.traceback
    .join('\n')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.trim();
    const m = /^([A-Za-z_][\w.]*)(?::\s?(.*))?$/.exec(l);
    if (m && m[1]!.split('.').pop() === ename) {
      const msg = m[2] ?? '';
      return HIDDEN.has(msg.trim()) ? null : msg;
    }
  }
  return null;
}
