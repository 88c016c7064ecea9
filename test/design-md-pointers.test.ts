// DESIGN.md is the maintainers' design card and is not part of the
// repository: nothing a user reads — help texts, error hints, schema
// descriptions, documentation — may send them there (point at the README or
// docs/formats.md instead). Code comments are not checked.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function walk(dir: string, keep: (f: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'vendor' && e.name !== 'generated')
        out.push(...(await walk(p, keep)));
    } else if (keep(p)) out.push(p);
  }
  return out;
}

/** Lines of a TypeScript source where a string literal (not a comment) names DESIGN.md. */
function literalMentions(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const code = line.trimStart();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) continue;
    if (/(['"`])[^'"`]*DESIGN\.md/.test(line)) out.push(line.trim());
  }
  return out;
}

describe('no user-facing text points at DESIGN.md', () => {
  it('help texts and error hints (string literals in packages/*/src)', async () => {
    const files = await walk(
      path.join(root, 'packages'),
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f.includes(`${path.sep}src${path.sep}`),
    );
    const found: string[] = [];
    for (const f of files)
      for (const l of literalMentions(await readFile(f, 'utf8'))) found.push(`${path.relative(root, f)}: ${l}`);
    expect(found).toEqual([]);
  });

  it('schemas, image profiles and documentation', async () => {
    const files = [
      ...(await walk(path.join(root, 'schemas'), (f) => f.endsWith('.json'))),
      ...(await walk(path.join(root, 'docker'), (f) => f.endsWith('.json') || f.endsWith('.md'))),
      ...(await walk(path.join(root, 'docs'), (f) => f.endsWith('.md'))),
      path.join(root, 'README.md'),
      path.join(root, 'CONTRIBUTING.md'),
    ];
    const found: string[] = [];
    for (const f of files) if ((await readFile(f, 'utf8')).includes('DESIGN.md')) found.push(path.relative(root, f));
    expect(found).toEqual([]);
  });
});
