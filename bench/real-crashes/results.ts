// bench/real-crashes: the report of run.ts (results.md), from the results of each label. Pure.

import { TRIAGE_CAUSES } from '@junobench/reproduce';

/** One crash of the corpus (see README.md for the fields). */
export interface Entry {
  id: string;
  repo: string;
  path: string;
  commit: string;
  license: string;
  ename: string;
  evalue: string;
  libraries: string[];
  /** The library cause, labelled by hand (JunoBench's taxonomy; None = no library caused it). */
  library: string;
  data: 'in-repo' | 'url' | 'gone' | 'none';
  dataNote: string;
  why: string;
  crashCell?: number;
  executionCount?: number | null;
  dataFiles?: { path: string; readAs: string }[];
}

export interface EntryResult {
  id: string;
  exitCode: number;
  outcome: 'reproduced' | 'not-reproduced' | 'skipped-env' | 'refused' | 'error';
  cause?: string;
  detail?: string;
  next?: string;
  verify: string;
  error?: string;
  suggestedLibrary?: string;
  synthetic: string[];
  match?: string;
  edits: string[];
  durationMs: number;
}

/**
 * review.json: a check of each cause named for an entry that did not reproduce (in the label the reviewer read):
 * the cause, agree/disagree, one line why, and who reviewed it (a person, or an automated reviewer that says so).
 */
export interface Verdict {
  agree: boolean;
  note: string;
  cause?: string;
  verdict?: 'agree' | 'disagree';
  reviewer?: string;
  /** The run (`--label`) whose cause was read; `after` when absent (the first round). */
  label?: string;
}

/** One verdict per entry, or one per round of review (oldest first). */
export type Review = Record<string, Verdict | Verdict[]>;

/** Every round's verdict on an entry, oldest first, each with its label. */
export function verdictsOf(review: Review, id: string): (Verdict & { label: string })[] {
  const v = review[id];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map((x) => ({ ...x, label: x.label ?? 'after' }));
}

/** The latest verdict on an entry, if any. */
export function latestVerdict(review: Review, id: string): (Verdict & { label: string }) | undefined {
  return verdictsOf(review, id).at(-1);
}

const BATCHES: readonly [string, RegExp][] = [
  ['first batch, gh-0xx', /^gh-0\d\d$/],
  ['second batch, gh-1xx', /^gh-1\d\d$/],
  ['third batch, gh-2xx', /^gh-2\d\d$/],
  ['fourth batch, gh-3xx', /^gh-3\d\d$/],
  ['fifth batch, gh-4xx', /^gh-4\d\d$/],
];

/** Held-out entries read while the runner was built, before the split was computed (README.md, "Split"). */
export const SEEN_HELD_OUT: ReadonlySet<string> = new Set(['gh-003', 'gh-004', 'gh-005', 'gh-009', 'gh-013', 'gh-014', 'gh-018']);

/** The triage vocabulary, in the report's order: one list, the package's own. */
const CAUSES: readonly string[] = TRIAGE_CAUSES;

function pct(n: number, d: number): string {
  return d === 0 ? '–' : `${n}/${d} (${Math.round((100 * n) / d)}%)`;
}

function oneLine(s: string | undefined, max = 160): string {
  const l = (s ?? '').split('\n')[0]!.replace(/\|/g, '\\|');
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
}

function reproducedOf(rs: Map<string, EntryResult>, es: readonly Entry[]): number {
  return es.filter((e) => rs.get(e.id)?.outcome === 'reproduced').length;
}

/** Whether a suggested library is the labelled one (TensorFlow and Keras are one class). */
export function sameLibrary(label: string, suggested: string | undefined): boolean {
  return suggested !== undefined && label.toLowerCase() === suggested.toLowerCase();
}

export function writeResults(
  corpus: readonly Entry[],
  labels: Record<string, Map<string, EntryResult>>,
  review: Review,
  split: ReadonlyMap<string, 'dev' | 'held-out'>,
): string {
  const order = ['before', 'after', ...Object.keys(labels).filter((l) => l !== 'before' && l !== 'after').sort()].filter(
    (l) => labels[l],
  );
  const lines: string[] = [];
  lines.push('# real-crashes: `junobench add` on real public crash notebooks');
  lines.push('');
  lines.push(
    'Written by `npx tsx bench/real-crashes/run.ts` (see README.md for the corpus and how it is fetched); per-entry verdicts on the named causes go in `review.json` (' +
      (Object.keys(review).length === 0 ? 'none so far: the causes below are the tool\'s own' : `${Object.keys(review).length} entries, see "Review of the named causes"`) +
      '). Local runtime (bubblewrap sandbox, Debian\'s Python stack); this machine has no internet, so a download fails and `add` falls back to derived data. In-repo data is given with `--data` (when the binary has it); data that is gone is withheld. A label is whatever `--label` the run was given; each label\'s results are committed in `runs/<label>.json`. The labels measured before those files existed (`before`, `after`, `review` and later ones, each described in README.md) are in `results-2026-12-07.md`, which is kept as it was written.',
  );
  lines.push('');
  const groups: [string, readonly Entry[]][] = [
    [`all (${corpus.length})`, corpus],
    ...(['gone', 'in-repo', 'url', 'none'] as const).map((d): [string, Entry[]] => {
      const es = corpus.filter((e) => e.data === d);
      return [`data ${d} (${es.length})`, es];
    }),
    ...(['dev', 'held-out'] as const).map((s): [string, Entry[]] => {
      const es = corpus.filter((e) => split.get(e.id) === s);
      return [`${s} split (${es.length})`, es];
    }),
    ((): [string, Entry[]] => {
      const es = corpus.filter((e) => split.get(e.id) === 'held-out' && !SEEN_HELD_OUT.has(e.id));
      return [`held-out, not read while the runner was built (${es.length})`, es];
    })(),
    ((): [string, Entry[]] => {
      const es = corpus.filter((e) => e.data === 'gone' && split.get(e.id) === 'held-out');
      return [`data gone, held-out (${es.length})`, es];
    })(),
    // Batches by id (README.md, "How it was chosen"): each was measured unseen when it was added.
    ...BATCHES.map(([name, re]): [string, Entry[]] => {
      const es = corpus.filter((e) => re.test(e.id));
      return [`${name} (${es.length})`, es];
    }).filter(([, es]) => es.length > 0),
  ];
  lines.push('## Reproduced without hand edits');
  lines.push('');
  lines.push(`| | ${order.join(' | ')} |`);
  lines.push(`|---|${order.map(() => '---').join('|')}|`);
  for (const [name, es] of groups) {
    lines.push(`| ${name} | ${order.map((l) => pct(reproducedOf(labels[l]!, es), es.filter((e) => labels[l]!.has(e.id)).length)).join(' | ')} |`);
  }
  lines.push(
    `| exit codes | ${order
      .map((l) => {
        const counts = new Map<number, number>();
        for (const r of labels[l]!.values()) counts.set(r.exitCode, (counts.get(r.exitCode) ?? 0) + 1);
        return [...counts].sort((a, b) => a[0] - b[0]).map(([c, n]) => `${c}: ${n}`).join(', ');
      })
      .join(' | ')} |`,
  );
  lines.push(
    `| exit 70 | ${order.map((l) => [...labels[l]!.values()].filter((r) => r.exitCode === 70).length).join(' | ')} |`,
  );
  for (const [name, sides] of [
    ['library suggestion right, reproduced ones', ['dev', 'held-out']],
    ['… dev split', ['dev']],
    ['… held-out split', ['held-out']],
  ] as const) {
    lines.push(
      `| ${name} | ${order
        .map((l) => {
          const rep = corpus.filter(
            (e) => labels[l]!.get(e.id)?.outcome === 'reproduced' && (sides as readonly string[]).includes(split.get(e.id)!),
          );
          return pct(rep.filter((e) => sameLibrary(e.library, labels[l]!.get(e.id)!.suggestedLibrary)).length, rep.length);
        })
        .join(' | ')} |`,
    );
  }
  lines.push(
    `| library suggestion right, all drafted | ${order
      .map((l) => {
        const drafted = corpus.filter((e) => labels[l]!.get(e.id)?.suggestedLibrary !== undefined);
        return pct(drafted.filter((e) => sameLibrary(e.library, labels[l]!.get(e.id)!.suggestedLibrary)).length, drafted.length);
      })
      .join(' | ')} |`,
  );
  lines.push('');
  lines.push('## Not reproduced, by cause');
  lines.push('');
  lines.push(`| cause | ${order.join(' | ')} |`);
  lines.push(`|---|${order.map(() => '---').join('|')}|`);
  const keyOf = (r: EntryResult) =>
    r.outcome === 'reproduced' ? undefined : r.cause ?? (r.outcome === 'not-reproduced' ? '(no cause named)' : `(${r.outcome})`);
  const keys = new Set<string>();
  for (const l of order) for (const r of labels[l]!.values()) if (keyOf(r)) keys.add(keyOf(r)!);
  const sortedKeys = [...keys].sort((a, b) => (CAUSES.indexOf(a) + 100 * +(CAUSES.indexOf(a) < 0)) - (CAUSES.indexOf(b) + 100 * +(CAUSES.indexOf(b) < 0)) || (a < b ? -1 : 1));
  for (const k of sortedKeys) {
    lines.push(`| ${k} | ${order.map((l) => [...labels[l]!.values()].filter((r) => keyOf(r) === k).length).join(' | ')} |`);
  }
  lines.push('');
  lines.push('By split (dev / held-out):');
  lines.push('');
  lines.push(`| cause | ${order.join(' | ')} |`);
  lines.push(`|---|${order.map(() => '---').join('|')}|`);
  const countIn = (l: string, k: string | undefined, s: 'dev' | 'held-out') =>
    [...labels[l]!.values()].filter((r) => keyOf(r) === k && split.get(r.id) === s).length;
  for (const k of [undefined, ...sortedKeys]) {
    lines.push(
      `| ${k ?? 'reproduced'} | ${order.map((l) => `${countIn(l, k, 'dev')} / ${countIn(l, k, 'held-out')}`).join(' | ')} |`,
    );
  }
  const last = order[order.length - 1]!;
  // Verdicts count only on the cause of the run they read: a verdict on `after` says nothing of a later run's cause.
  const current = (id: string) => {
    const v = latestVerdict(review, id);
    const r = labels[last]!.get(id);
    return v && r && v.label === last && r.outcome !== 'reproduced' ? v : undefined;
  };
  const disagree = corpus.filter((e) => current(e.id) && !current(e.id)!.agree);
  const notRep = corpus.filter((e) => labels[last]!.has(e.id) && labels[last]!.get(e.id)!.outcome !== 'reproduced');
  lines.push('');
  lines.push(
    `Reviewed (${last}): ${notRep.filter((e) => current(e.id)).length} of the ${notRep.length} not reproduced have a verdict on this run's cause in review.json; the cause is disputed for ${disagree.length}.`,
  );
  lines.push(...reviewSection(corpus, labels, review, split));
  lines.push('');
  lines.push('## Per entry');
  lines.push('');
  lines.push(
    `| id | split | data | crash | ${order.map((l) => `${l}`).join(' | ')} | cause (${last}): detail | library: label / suggested (${last}) | review |`,
  );
  lines.push(`|---|---|---|---|${order.map(() => '---').join('|')}|---|---|---|`);
  for (const e of corpus) {
    const r = labels[last]!.get(e.id);
    const out = (l: string) => {
      const x = labels[l]!.get(e.id);
      if (!x) return '–';
      return `${x.outcome === 'reproduced' ? '**reproduced**' : (x.cause ?? x.outcome)} (${x.exitCode})${x.synthetic.length > 0 ? ' syn' : ''}`;
    };
    const cause = r && r.outcome !== 'reproduced' ? `${r.cause ?? r.outcome}: ${oneLine(r.detail ?? r.error ?? r.verify)}` : '';
    const lib = `${e.library} / ${r?.suggestedLibrary ?? '–'}${r?.suggestedLibrary && !sameLibrary(e.library, r.suggestedLibrary) ? ' ✗' : ''}`;
    const rv = current(e.id);
    lines.push(
      `| ${e.id} | ${split.get(e.id)} | ${e.data} | ${e.ename}: ${oneLine(e.evalue, 60)} | ${order.map(out).join(' | ')} | ${cause} | ${lib} | ${rv ? `${rv.agree ? 'agree' : '**disagree**'}: ${oneLine(rv.note, 200)}` : ''} |`,
    );
  }
  if (disagree.length > 0) {
    lines.push('');
    lines.push('## Where the reviewer disagrees with the cause');
    lines.push('');
    for (const e of disagree) lines.push(`- ${e.id}: ${current(e.id)!.note}`);
  }
  lines.push('');
  return lines.join('\n');
}

/** Each round of review: who reviewed, and the counts by split of the verdicts on that run's causes. */
function reviewSection(
  corpus: readonly Entry[],
  labels: Record<string, Map<string, EntryResult>>,
  review: Review,
  split: ReadonlyMap<string, 'dev' | 'held-out'>,
): string[] {
  const all = corpus.flatMap((e) => verdictsOf(review, e.id).map((v) => ({ e, v })));
  if (all.length === 0) return [];
  const rounds = [...new Set(all.map((x) => x.v.label))];
  const reviewers = [...new Set(all.map((x) => x.v.reviewer ?? '(not said)'))].sort();
  const out = ['', '## Review of the named causes', ''];
  out.push(
    `Reviewer: ${reviewers.join(', ')}. ` +
      (reviewers.every((r) => /not a person/.test(r))
        ? "An automated reviewer (the same that wrote the mechanisms) read each notebook's saved crash, the draft run and the recorded cause; no person has checked these verdicts yet. The first round's notes covered held-out entries, so the later runs' causes on held-out entries are not judged on unseen data."
        : ''),
  );
  out.push('');
  out.push('| round (run read) | split | reviewed | agree | disagree |');
  out.push('|---|---|---|---|---|');
  for (const round of rounds) {
    const inRound = all.filter((x) => x.v.label === round);
    for (const [name, xs] of [
      ['dev', inRound.filter((x) => split.get(x.e.id) === 'dev')],
      ['held-out', inRound.filter((x) => split.get(x.e.id) === 'held-out')],
      ['all', inRound],
    ] as const) {
      const agree = xs.filter((x) => x.v.agree).length;
      out.push(`| ${round} | ${name} | ${xs.length} | ${agree} | ${xs.length - agree} |`);
    }
  }
  // What became, in a later round's run, of each entry an earlier round disputed.
  const changed = corpus.flatMap((e) => {
    const vs = verdictsOf(review, e.id);
    const first = vs[0];
    if (!first || first.agree) return [];
    const laterRound = rounds.slice(rounds.indexOf(first.label) + 1).at(-1);
    const r = laterRound ? labels[laterRound]?.get(e.id) : undefined;
    if (!r) return [];
    const now = r.outcome === 'reproduced' ? 'reproduced' : (r.cause ?? r.outcome);
    const v = vs.find((x) => x.label === laterRound);
    return [`${e.id} (${first.cause ?? '?'} → ${now}${v ? `, ${v.agree ? 'agreed' : 'still disputed'}` : ''})`];
  });
  if (changed.length > 0) {
    out.push('');
    out.push(`Disputed in an earlier round, in the latest run: ${changed.join('; ')}.`);
  }
  return out;
}
