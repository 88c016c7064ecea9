import { listLogicalLines } from './python-statements.js';
import { listBoundNames } from './python-statements.js';
import { escapeDoc, renderChecksFile, type CandidateCheck } from './plan-candidate-checks.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_DRAFT_CHECKS = 8;

/**
 * Draft checks for a new instance, from its crash cell alone (`junobench add` writes them beside the draft, which has
 * no fixed notebook yet): each name the cell's top-level statements bind, and each column they assign
 * (`df['col'] = …`), must exist after the last cell — the least a fix of that cell achieves. They are a start to
 * review: once fixed.ipynb exists, `junobench checks suggest <id>` derives checks from what the fix produces.
 */
export function planDraftChecks(id: string, crashCell: string): string | undefined {
  const checks: CandidateCheck[] = [];
  const taken = new Set<string>();
  const add = (slug: string, reason: string, body: string[]) => {
    const name = `check_${slug
      .replace(/[^A-Za-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .toLowerCase()}`.slice(0, 60);
    if (taken.has(name) || checks.length >= MAX_DRAFT_CHECKS) return;
    taken.add(name);
    checks.push({ name, reason, body, rank: 1 });
  };
  for (const line of listLogicalLines(crashCell)) {
    if (line.indent !== '') continue;
    const s = { first: line.first, last: line.last, indent: '', tokens: line.tokens };
    for (const n of listBoundNames(s).filter((x) => IDENT.test(x) && !x.startsWith('_')))
      add(`${n}_defined`, `\`${n}\` exists after the last cell: the crash cell ran through`, [
        `assert ${JSON.stringify(n)} in globals(), ${JSON.stringify(`${n} is not defined`)}`,
      ]);
    const t = line.tokens;
    // `name["col"] = …` (or `name['col'] = …`): the column exists afterwards.
    if (
      t[0]?.kind === 'name' &&
      t[1]?.text === '[' &&
      t[2]?.kind === 'string' &&
      t[3]?.text === ']' &&
      t[4]?.text === '='
    ) {
      const col = /^['"](.*)['"]$/.exec(t[2].text)?.[1];
      if (col !== undefined && !col.includes('\\'))
        add(`${t[0].text}_${col}`, `\`${t[0].text}['${escapeDoc(col)}']\` exists after the last cell`, [
          `assert ${JSON.stringify(col)} in ${t[0].text}, ${JSON.stringify(`no column ${col}`)}`,
        ]);
    }
  }
  if (checks.length === 0) return undefined;
  const header =
    `Draft checks of ${id}, written by \`junobench add\` from its crash cell alone: what any fix of that cell leaves behind.\n\n` +
    'Review them. Once fixed.ipynb exists, `junobench checks suggest ' +
    id +
    ' --write --force` proposes checks derived from what\n' +
    'the fix produces, mutation-tested against non-fixes of the crashing notebook (docs/checks.md).';
  return renderChecksFile(id, checks, header);
}
