// Pointers in the repository must lead somewhere in the repository. DESIGN.md is
// the maintainers' design card and issue numbers live in a tracker: neither is
// part of the repository, so no text here — help texts, error hints, schema
// descriptions, documentation, the lint config, code comments — may send a
// reader there. Point at a README, CONTRIBUTING or docs/*.md section instead
// (docs/design.md holds the layering, data flow and style rules). A pointer
// written as `docs/<page>.md, "<section>"` (or `README, "<section>"`) must name
// a page that exists and a heading of it.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);
const SKIP_DIRS = new Set(['node_modules', 'vendor', 'generated', 'dist', 'fixtures', '.nx', '__pycache__']);

async function walk(dir: string, keep: (f: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...(await walk(p, keep)));
    } else if (keep(p)) out.push(p);
  }
  return out;
}

const SOURCE = /\.(ts|mts|mjs|js|py|sh)$/;

/** Every file whose text is ours: sources, scripts, tests, benchmarks, configs, schemas and documentation. */
async function repositoryTexts(): Promise<string[]> {
  const files = [
    ...(await walk(path.join(root, 'packages'), (f) => SOURCE.test(f) || f.endsWith('.md'))),
    ...(await walk(path.join(root, 'test'), (f) => SOURCE.test(f) && f !== self)),
    ...(await walk(path.join(root, 'tools'), (f) => SOURCE.test(f))),
    ...(await walk(path.join(root, 'bench'), (f) => SOURCE.test(f) || f.endsWith('.md'))),
    ...(await walk(path.join(root, 'schemas'), (f) => f.endsWith('.json'))),
    ...(await walk(path.join(root, 'docker'), (f) => f.endsWith('.json') || f.endsWith('.md'))),
    ...(await walk(path.join(root, 'docs'), (f) => f.endsWith('.md'))),
    ...['README.md', 'CONTRIBUTING.md', 'eslint.config.mjs', 'vitest.config.ts'].map((f) => path.join(root, f)),
  ];
  return files.filter((f) => existsSync(f) && !f.includes(`${path.sep}dist${path.sep}`));
}

/** `file:line: text` for every line of `files` that `pattern` matches. */
async function linesMatching(files: string[], pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  for (const f of files) {
    const lines = (await readFile(f, 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (pattern.test(line)) found.push(`${path.relative(root, f)}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

/** The headings of a Markdown file, without `#`s and backticks. */
function headings(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(line)) out.push(line.replace(/^#+ /, '').replaceAll('`', '').trim());
  }
  return out;
}

describe('pointers resolve inside the repository', () => {
  it('nothing points at DESIGN.md (strings, comments, the lint config, documentation)', async () => {
    expect(await linesMatching(await repositoryTexts(), /DESIGN\.md|DESIGN §/)).toEqual([]);
  });

  it('the lint config points at the repository (its messages and comments)', async () => {
    const config = path.join(root, 'eslint.config.mjs');
    expect(await linesMatching([config], /DESIGN|§\s*\d|\b[Ii]ssues? #?\d+/)).toEqual([]);
    expect(await readFile(config, 'utf8')).toContain('docs/design.md');
  });

  it('nothing points at an issue number', async () => {
    expect(await linesMatching(await repositoryTexts(), /\bissues? #?\d+\b|\bissue-\d+\b/i)).toEqual([]);
  });

  it('every "docs/<page>.md, \\"<section>\\"" and "README, \\"<section>\\"" names a page and a heading of it', async () => {
    const pointer = /\b(docs\/[a-z0-9-]+\.md|README|CONTRIBUTING(?:\.md)?)\b,? "([^"\n]+)"/g;
    const missing: string[] = [];
    for (const f of await repositoryTexts()) {
      // A pointer may wrap from one comment line to the next.
      const text = (await readFile(f, 'utf8')).replace(/\n\s*(?:\/\/|\*|#)\s*/g, ' ');
      for (const m of text.matchAll(pointer)) {
        const page = m[1] === 'README' ? 'README.md' : m[1] === 'CONTRIBUTING' ? 'CONTRIBUTING.md' : m[1]!;
        const file = path.join(root, page);
        const section = m[2]!.replaceAll('`', '').replaceAll('\\', '').trim();
        const where = `${path.relative(root, f)}: ${m[0]}`;
        if (!existsSync(file)) missing.push(`${where} (no ${page})`);
        else if (!headings(await readFile(file, 'utf8')).some((h) => h.startsWith(section)))
          missing.push(`${where} (no heading "${section}" in ${page})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every docs/<page>.md named anywhere exists', async () => {
    const missing: string[] = [];
    for (const f of await repositoryTexts())
      for (const m of (await readFile(f, 'utf8')).matchAll(/\bdocs\/([a-z0-9-]+\.md)\b/g))
        if (!existsSync(path.join(root, 'docs', m[1]!))) missing.push(`${path.relative(root, f)}: docs/${m[1]}`);
    expect(missing).toEqual([]);
  });
});
