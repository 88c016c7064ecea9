import { compareCodePoints, type DeprecatedInstance, type ReleaseFile, type ReleaseManifest } from '@junobench/core';
import type { ChangedInstance, Changelog } from './release-types.js';

const LABEL_DIMENSIONS = ['library', 'crashType', 'rootCause', 'pipelineStage', 'diagnosis'] as const;

/** Generated files differ in every release (they name the version): not worth a changelog line. */
const GENERATED = new Set(['README.md', 'CHANGELOG.md', 'croissant.json']);

/**
 * What changed between two releases' manifests: instances added and removed
 * (with the deprecation that removed them), and for instances in both, the
 * files added, removed or modified (by sha256), label changes and
 * verification changes. `deprecated` is the current deprecation list.
 */
export function planChangelog(
  previous: ReleaseManifest | null,
  current: ReleaseManifest,
  deprecated: readonly DeprecatedInstance[],
): Changelog {
  const depById = new Map(deprecated.map((d) => [d.id, d]));
  const prevDeprecated = new Set((previous?.deprecated ?? []).map((d) => d.id));
  const log: Changelog = {
    version: current.version,
    previous: previous?.version ?? null,
    added: [],
    removed: [],
    changed: [],
    newlyDeprecated: deprecated.filter((d) => !prevDeprecated.has(d.id)).sort((a, b) => compareCodePoints(a.id, b.id)),
    image: null,
    otherFiles: { added: [], removed: [], modified: [] },
  };
  if (!previous) {
    log.added = current.instances.map((i) => i.id).sort(compareCodePoints);
    return log;
  }
  const prev = new Map(previous.instances.map((i) => [i.id, i]));
  const cur = new Map(current.instances.map((i) => [i.id, i]));
  for (const id of [...cur.keys()].sort(compareCodePoints)) if (!prev.has(id)) log.added.push(id);
  for (const id of [...prev.keys()].sort(compareCodePoints)) {
    if (!cur.has(id)) {
      const dep = depById.get(id);
      log.removed.push(dep ? { id, deprecated: dep } : { id });
    }
  }
  for (const id of [...cur.keys()].sort(compareCodePoints)) {
    const a = prev.get(id);
    const b = cur.get(id)!;
    if (!a) continue;
    const change: ChangedInstance = {
      id,
      files: diffFiles(a.files, b.files, `instances/${id}/`),
      labels: [],
      verification: [],
    };
    for (const dim of LABEL_DIMENSIONS) {
      const from = a.labels[dim] ?? '';
      const to = b.labels[dim] ?? '';
      if (from !== to) change.labels.push({ dimension: dim, from, to });
    }
    if (a.status !== b.status) change.verification.push({ what: 'status', from: a.status, to: b.status });
    if (a.verification.reproduced !== b.verification.reproduced)
      change.verification.push({ what: 'reproduced', from: a.verification.reproduced, to: b.verification.reproduced });
    if (a.verification.fixed !== b.verification.fixed)
      change.verification.push({ what: 'fixed', from: a.verification.fixed, to: b.verification.fixed });
    const f = change.files;
    if (f.added.length + f.removed.length + f.modified.length + change.labels.length + change.verification.length > 0)
      log.changed.push(change);
  }
  const imageOf = (m: ReleaseManifest) => m.image.registry?.reference ?? m.image.tag ?? null;
  if (imageOf(previous) !== imageOf(current)) log.image = { from: imageOf(previous), to: imageOf(current) };
  const other = diffFiles(previous.files, current.files, '');
  const keep = (p: string) => !GENERATED.has(p);
  log.otherFiles = {
    added: other.added.filter(keep),
    removed: other.removed.filter(keep),
    modified: other.modified.filter(keep),
  };
  return log;
}

function diffFiles(a: readonly ReleaseFile[], b: readonly ReleaseFile[], prefix: string): ChangedInstance['files'] {
  const strip = (p: string) => (p.startsWith(prefix) ? p.slice(prefix.length) : p);
  const am = new Map(a.map((f) => [strip(f.path), f.sha256]));
  const bm = new Map(b.map((f) => [strip(f.path), f.sha256]));
  const out: ChangedInstance['files'] = { added: [], removed: [], modified: [] };
  for (const [p, h] of [...bm].sort((x, y) => compareCodePoints(x[0], y[0]))) {
    if (!am.has(p)) out.added.push(p);
    else if (am.get(p) !== h) out.modified.push(p);
  }
  for (const p of [...am.keys()].sort(compareCodePoints)) if (!bm.has(p)) out.removed.push(p);
  return out;
}

/** CHANGELOG.md of a release. */
export function formatChangelog(log: Changelog, name = 'JunoBench'): string {
  const lines: string[] = [`# Changelog`, '', `## ${name} ${log.version}`, ''];
  if (!log.previous) {
    lines.push(`First release: ${log.added.length} instance${log.added.length === 1 ? '' : 's'}.`, '');
    if (log.added.length > 0) lines.push(...log.added.map((id) => `- ${id}`), '');
  } else {
    lines.push(`Compared with ${log.previous}.`, '');
    const section = (title: string, items: string[]) => {
      if (items.length === 0) return;
      lines.push(`### ${title}`, '', ...items.map((i) => `- ${i}`), '');
    };
    section('Added', log.added);
    section(
      'Removed',
      log.removed.map((r) =>
        r.deprecated
          ? `${r.id} — deprecated in ${r.deprecated.deprecatedIn}: ${oneLine(r.deprecated.reason)}`
          : `${r.id}`,
      ),
    );
    section(
      'Changed',
      log.changed.map((c) => {
        const parts: string[] = [];
        const f = c.files;
        if (f.modified.length) parts.push(`files modified: ${f.modified.join(', ')}`);
        if (f.added.length) parts.push(`files added: ${f.added.join(', ')}`);
        if (f.removed.length) parts.push(`files removed: ${f.removed.join(', ')}`);
        for (const l of c.labels)
          parts.push(l.dimension === 'diagnosis' ? 'diagnosis rewritten' : `${l.dimension}: ${l.from} → ${l.to}`);
        for (const v of c.verification)
          parts.push(`${v.what === 'status' ? 'verification' : v.what}: ${v.from} → ${v.to}`);
        return `${c.id}: ${parts.join('; ')}`;
      }),
    );
    if (log.added.length + log.removed.length + log.changed.length === 0)
      lines.push('No instance was added, removed or changed.', '');
    if (log.image) lines.push('### Image', '', `- ${log.image.from ?? '(none)'} → ${log.image.to ?? '(none)'}`, '');
    const o = log.otherFiles;
    section('Other files', [
      ...o.added.map((p) => `added ${p}`),
      ...o.removed.map((p) => `removed ${p}`),
      ...o.modified.map((p) => `modified ${p}`),
    ]);
  }
  const depNotRemoved = log.newlyDeprecated.filter((d) => !log.removed.some((r) => r.id === d.id));
  if (depNotRemoved.length > 0) {
    lines.push(
      '### Deprecated',
      '',
      ...depNotRemoved.map((d) => `- ${d.id} — deprecated in ${d.deprecatedIn}: ${oneLine(d.reason)}`),
      '',
    );
  }
  return lines.join('\n').replace(/\n+$/, '\n');
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
