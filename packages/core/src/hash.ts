import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, lstat } from 'node:fs/promises';
import path from 'node:path';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * JSON with object keys sorted at every level: the same value always gives the
 * same bytes, which makes hashes and written files reproducible.
 */
export function stableStringify(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object' && (value as object).constructor === Object) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v === undefined) continue;
      // A key named __proto__ (a sheet's column) must stay a key: assigning it would set the prototype.
      if (k === '__proto__')
        Object.defineProperty(out, k, { value: sortKeys(v), enumerable: true, writable: true, configurable: true });
      else out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export function hashValue(value: unknown): string {
  return sha256(stableStringify(value));
}

export async function hashFile(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Every file (and symlink) under root, relative, `/`-separated, sorted by code point. */
export async function listTree(root: string, ignore?: (rel: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string, prefix: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const name of names) {
      const rel = prefix ? `${prefix}/${name}` : name;
      if (ignore?.(rel)) continue;
      const abs = path.join(dir, name);
      const st = await lstat(abs);
      if (st.isDirectory()) await walk(abs, rel);
      else out.push(rel);
    }
  }
  await walk(root, '');
  return out.sort(compareCodePoints);
}

/** Locale-independent string order, so sorted outputs are the same everywhere. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
