import { createRequire } from 'node:module';
import type * as UnicodeName from 'unicode-name';

// The name tables are 1.6 MB of JavaScript: load them on the first \N{…} only,
// not with every command that imports this package.
let names: typeof UnicodeName | undefined;
function unicodeNames(): typeof UnicodeName {
  names ??= createRequire(import.meta.url)('unicode-name') as typeof UnicodeName;
  return names;
}

// Python's `\N{NAME}` escape names a character by its Unicode name or alias,
// case-insensitively. unicode-name maps code points to names; the reverse
// index is built on first use only (tracebacks almost never contain \N{…}).
let index: Map<string, number> | undefined;

// Every named, non-algorithmic character lives in planes 0–1 or in the tag and
// variation-selector block of plane 14. Names ending in "-XXXX" (CJK, Tangut,
// Nushu, Khitan ideographs…) and Hangul syllables are algorithmic: they are
// resolved directly, and their blocks are left out of the scan.
const INDEXED_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x33ff],
  [0x4dc0, 0x4dff],
  [0xa000, 0xabff],
  [0xd7b0, 0xd7ff],
  [0xf900, 0xffff],
  [0x10000, 0x16fff],
  [0x18800, 0x18aff],
  [0x18d00, 0x1b16f],
  [0x1b300, 0x1ffff],
  [0xe0000, 0xe01ef],
];

const HANGUL_FIRST = 0xac00;
const HANGUL_LAST = 0xd7a3;

function buildIndex(): Map<string, number> {
  const { unicodeAliases, unicodeBaseName } = unicodeNames();
  const map = new Map<string, number>();
  for (const [from, to] of INDEXED_RANGES) {
    for (let cp = from; cp <= to; cp++) {
      const name = unicodeBaseName(cp);
      if (name && !name.startsWith('<') && !map.has(name)) map.set(name, cp);
      const aliases = unicodeAliases(cp);
      if (!aliases) continue;
      for (const list of Object.values(aliases)) {
        for (const alias of list ?? []) if (!map.has(alias)) map.set(alias, cp);
      }
    }
  }
  return map;
}

/** The character a Unicode name or alias stands for (`BULLET` → "•"), or undefined. */
export function lookupUnicodeName(name: string): string | undefined {
  const key = name.trim().replace(/\s+/g, ' ').toUpperCase();
  if (key === '') return undefined;
  const { unicodeBaseName } = unicodeNames();
  const suffix = /-([0-9A-F]{4,6})$/.exec(key);
  if (suffix) {
    const cp = Number.parseInt(suffix[1]!, 16);
    if (cp <= 0x10ffff && unicodeBaseName(cp) === key) return String.fromCodePoint(cp);
  }
  if (key.startsWith('HANGUL SYLLABLE ')) {
    for (let cp = HANGUL_FIRST; cp <= HANGUL_LAST; cp++)
      if (unicodeBaseName(cp) === key) return String.fromCodePoint(cp);
    return undefined;
  }
  index ??= buildIndex();
  const cp = index.get(key);
  return cp === undefined ? undefined : String.fromCodePoint(cp);
}
