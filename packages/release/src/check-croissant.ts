import { parse } from 'csv-parse/sync';
import {
  checkSchema,
  compileLinearRegExp,
  formatIssue,
  pointerToField,
  type CroissantDataset,
  type CroissantFileObject,
  type CroissantFileSet,
  type LinearRegExp,
} from '@junobench/core';

export interface CroissantIssue {
  /** Where in croissant.json: an @id or a property path. */
  at: string;
  message: string;
}

/** What the checks can compare the document with. */
export interface CroissantContext {
  /** Files the document's relative contentUrls and includes resolve against (the extracted release), by path. */
  files: ReadonlyMap<string, { bytes: number; sha256: string }>;
  /** Text of CSV files by path (their header names the columns fields may extract). */
  csvText?: ReadonlyMap<string, string>;
  /** The archive, when the document describes it (the croissant.json beside it). */
  archive?: { name: string; bytes: number; sha256: string };
  /** The archive's top folder: paths inside the archive start with it. */
  topFolder?: string;
  /** The release version the document must carry. */
  version?: string;
}

/**
 * Check a Croissant document: first against schemas/croissant.schema.json,
 * then what a schema cannot say: @ids are unique; every referenced @id
 * (containedIn, source.fileObject/fileSet, key) exists and has the right
 * type; every FileObject's sha256 and size match the file it names; every
 * FileSet includes at least one file; every extracted column is in the CSV's
 * header and every CSV column is mapped by a field. Returns every issue.
 */
export function checkCroissant(doc: unknown, ctx: CroissantContext): CroissantIssue[] {
  const issues: CroissantIssue[] = checkSchema('croissant', doc).map((i) => ({
    at: pointerToField(i.path) || '(document)',
    message: formatIssue(i),
  }));
  if (issues.length > 0) return issues;
  const d = doc as CroissantDataset;
  const add = (at: string, message: string) => issues.push({ at, message });

  if (ctx.version !== undefined && d.version !== ctx.version)
    add('version', `is "${d.version}", the release is ${ctx.version}`);
  if (d.distribution.length === 0) add('distribution', 'is empty');
  if (d.recordSet.length === 0) add('recordSet', 'is empty');
  if (d.creator.length === 0) add('creator', 'is empty');

  const byId = new Map<string, { kind: 'FileObject' | 'FileSet' | 'RecordSet' | 'Field'; node: unknown }>();
  const declare = (id: string, kind: 'FileObject' | 'FileSet' | 'RecordSet' | 'Field', node: unknown) => {
    if (byId.has(id)) add(id, `@id "${id}" is declared more than once`);
    else byId.set(id, { kind, node });
  };
  for (const n of d.distribution) declare(n['@id'], n['@type'] === 'cr:FileObject' ? 'FileObject' : 'FileSet', n);
  for (const rs of d.recordSet) {
    declare(rs['@id'], 'RecordSet', rs);
    for (const f of rs.field) declare(f['@id'], 'Field', f);
  }
  const expect = (at: string, ref: { '@id': string } | undefined, kinds: string[]): unknown => {
    if (!ref) return undefined;
    const target = byId.get(ref['@id']);
    if (!target) {
      add(at, `references @id "${ref['@id']}", which is not declared`);
      return undefined;
    }
    if (!kinds.includes(target.kind))
      add(at, `references "${ref['@id']}", a ${target.kind}, where a ${kinds.join(' or ')} is expected`);
    return target.node;
  };

  // Paths inside the archive carry its top folder; the files map is keyed without it.
  const resolvePath = (
    node: { contentUrl?: string; containedIn?: { '@id': string } },
    raw: string,
  ): string | undefined => {
    if (!node.containedIn) return /^[a-z][a-z0-9+.-]*:/i.test(raw) ? undefined : raw.replace(/^\.\//, '');
    const prefix = ctx.topFolder ? `${ctx.topFolder}/` : '';
    if (prefix && !raw.startsWith(prefix)) return undefined;
    return raw.slice(prefix.length);
  };

  for (const n of d.distribution) {
    const at = n['@id'];
    if (n.containedIn) expect(`${at}.containedIn`, n.containedIn, ['FileObject', 'FileSet']);
    if (n['@type'] === 'cr:FileObject') checkFileObject(n, at);
    else checkFileSet(n, at);
  }

  function checkFileObject(n: CroissantFileObject, at: string): void {
    const declared = n.contentSize ? Number(n.contentSize.replace(/ B$/, '')) : undefined;
    if (
      ctx.archive &&
      (n.name === ctx.archive.name ||
        n.contentUrl.endsWith(`/${ctx.archive.name}`) ||
        n.contentUrl === ctx.archive.name) &&
      !n.containedIn
    ) {
      if (n.sha256 !== ctx.archive.sha256)
        add(at, `sha256 ${n.sha256} does not match the archive ${ctx.archive.name} (${ctx.archive.sha256})`);
      if (declared !== undefined && declared !== ctx.archive.bytes)
        add(at, `contentSize ${declared} B does not match the archive's ${ctx.archive.bytes} bytes`);
      return;
    }
    const p = resolvePath(n, n.contentUrl);
    const file = p === undefined ? undefined : ctx.files.get(p);
    if (!file) {
      add(at, `contentUrl "${n.contentUrl}" names no file of the release`);
      return;
    }
    if (file.sha256 !== n.sha256) add(at, `sha256 ${n.sha256} does not match ${p} (${file.sha256})`);
    if (declared !== undefined && declared !== file.bytes)
      add(at, `contentSize ${declared} B does not match ${p} (${file.bytes} bytes)`);
  }

  function checkFileSet(n: CroissantFileSet, at: string): void {
    const patterns = Array.isArray(n.includes) ? n.includes : [n.includes as string];
    for (const pattern of patterns) {
      const p = resolvePath(n, pattern);
      if (p === undefined) {
        add(at, `includes "${pattern}" is outside the archive's top folder`);
        continue;
      }
      const re = globToRegExp(p);
      if (![...ctx.files.keys()].some((f) => re.test(f)))
        add(at, `includes "${pattern}" matches no file of the release`);
    }
  }

  const headers = new Map<string, string[] | null>();
  const headerOf = (fo: CroissantFileObject): string[] | null => {
    if (!headers.has(fo['@id'])) {
      const p = resolvePath(fo, fo.contentUrl);
      const text = p === undefined ? undefined : ctx.csvText?.get(p);
      headers.set(fo['@id'], text === undefined ? null : readCsvHeader(text));
    }
    return headers.get(fo['@id'])!;
  };

  for (const rs of d.recordSet) {
    const fieldIds = new Set(rs.field.map((f) => f['@id']));
    const keys = rs.key === undefined ? [] : Array.isArray(rs.key) ? rs.key : [rs.key];
    for (const k of keys)
      if (!fieldIds.has(k['@id']))
        add(`${rs['@id']}.key`, `names "${k['@id']}", which is not a field of this record set`);
    const mapped = new Map<string, Set<string>>();
    for (const f of rs.field) {
      const at = f['@id'];
      const src = f.source;
      if (src.fileObject && src.fileSet) add(`${at}.source`, 'names both a fileObject and a fileSet');
      if (!src.fileObject && !src.fileSet) add(`${at}.source`, 'names no fileObject or fileSet');
      const fo = expect(`${at}.source.fileObject`, src.fileObject, ['FileObject']) as CroissantFileObject | undefined;
      expect(`${at}.source.fileSet`, src.fileSet, ['FileSet']);
      const column = src.extract.column;
      if (column !== undefined) {
        if (!fo || fo['@type'] !== 'cr:FileObject') {
          if (src.fileSet)
            add(`${at}.source.extract`, 'extracts a column from a FileSet; columns are read from a CSV FileObject');
          continue;
        }
        const header = headerOf(fo);
        if (header === null)
          add(`${at}.source.extract`, `extracts column "${column}" from ${fo['@id']}, whose header could not be read`);
        else if (!header.includes(column))
          add(
            `${at}.source.extract`,
            `extracts column "${column}", which ${fo['@id']} does not have (columns: ${header.join(', ')})`,
          );
        if (!mapped.has(fo['@id'])) mapped.set(fo['@id'], new Set());
        mapped.get(fo['@id'])!.add(column);
      }
    }
    for (const [id, columns] of mapped) {
      const header = headerOf(byId.get(id)!.node as CroissantFileObject);
      for (const c of header ?? [])
        if (!columns.has(c)) add(rs['@id'], `column "${c}" of ${id} is not mapped by any field`);
    }
  }
  return issues;
}

/** The first record of a CSV text: its column names. */
export function readCsvHeader(text: string): string[] {
  const rows = parse(text, { to_line: 1, relax_column_count: true, bom: true }) as string[][];
  return rows[0] ?? [];
}

/**
 * A Croissant `includes` glob: `*` within a path segment, `**` across
 * segments, `?` one character. Matched in linear time: a downloaded
 * release's globs are hostile (`*a*a*a…*b` on a long name takes minutes on a
 * backtracking engine, and `release verify --no-run` must stay cheap).
 */
export function globToRegExp(glob: string): LinearRegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return compileLinearRegExp(`^${re}$`);
}
