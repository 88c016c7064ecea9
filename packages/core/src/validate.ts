import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { compiledCodeDir, compiledCodeLoader } from './compiled-code.js';
import { JunoError, type ErrorCode, type ErrorLocation } from './errors.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Where the project's JSON Schemas live: the single source of truth for every format. */
export const SCHEMAS_DIR = path.resolve(HERE, '../../../schemas');

/**
 * Where `tools/build-cli.mjs` puts each schema's validator as compiled code (compiled-validators.ts), in a folder
 * named after validatorsKey(): compiling the schemas at run time costs every process that validates about half a
 * second (the instance schema alone 0.4 s); loading the compiled code of one, a few milliseconds.
 */
export const COMPILED_VALIDATORS_ROOT = path.resolve(HERE, '../dist');

/** Schema names are file names without `.schema.json` (e.g. `crash-record`). */
export type SchemaName = string;

export interface SchemaIssue {
  /** JSON pointer into the value, e.g. `/labels/rootCause` ('' = the whole value). */
  path: string;
  message: string;
}

const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true } as const satisfies Options;
const requireHere = createRequire(import.meta.url);

let ajvSingleton: Ajv2020 | undefined;
const compiled = new Map<SchemaName, ValidateFunction>();

function schemaFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort();
}

/**
 * Every schema of `dir` loaded into one ajv (schemas refer to each other by $id). `source`: keep each validator's
 * code, for compiled-validators.ts.
 */
export function newAjv(options: { dir?: string; source?: boolean } = {}): Ajv2020 {
  // Loaded here, not at the top: a process that finds every validator compiled (the CLI) never loads ajv's compiler,
  // about 0.15 s of every command's start (2026-12-07, `junobench verify` of an unknown id: 0.77 s of CPU in all).
  const { Ajv2020, _ } = requireHere('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = requireHere('ajv-formats') as (a: Ajv2020) => void;
  const dir = options.dir ?? SCHEMAS_DIR;
  // The formats' code names ajv-formats' module: set here, with this ajv's own code builder (ajv-formats would use
  // that of its own copy of ajv, which this one writes out as an object instead of code).
  const code = options.source ? { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } : {};
  const ajv = new Ajv2020({ ...AJV_OPTIONS, code });
  addFormats(ajv);
  for (const file of schemaFiles(dir)) {
    ajv.addSchema(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as object);
  }
  return ajv;
}

/**
 * What compiled validators are made from: ajv's and ajv-formats' versions (the code requires their run-time
 * helpers), the options and the code that compiles them, and every schema's name and bytes. Compiled code is used
 * only under the same key, so a changed schema is never checked by a stale validator.
 */
export function validatorsKey(dir: string = SCHEMAS_DIR): string {
  const h = createHash('sha256');
  const version = (pkg: string) => (requireHere(`${pkg}/package.json`) as { version: string }).version;
  h.update(JSON.stringify([version('ajv'), version('ajv-formats'), AJV_OPTIONS]));
  // And how they are made: this file (the options, the formats' code) and the one that writes them.
  for (const file of ['validate.ts', 'compiled-validators.ts']) h.update(readFileSync(path.join(HERE, file)));
  for (const file of schemaFiles(dir)) h.update(`\0${file}\0`).update(readFileSync(path.join(dir, file)));
  return h.digest('hex').slice(0, 16);
}

/** The folder compiled-validators.ts writes for `key`. */
export function compiledValidatorsDir(key: string, root: string = COMPILED_VALIDATORS_ROOT): string {
  return compiledCodeDir(root, 'validators', key);
}

const loadCompiled = compiledCodeLoader(COMPILED_VALIDATORS_ROOT, 'validators', () => validatorsKey());

function getAjv(): Ajv2020 {
  ajvSingleton ??= newAjv();
  return ajvSingleton;
}

function getValidator(name: SchemaName): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    v =
      (loadCompiled(`${name}.cjs`) as ValidateFunction | undefined) ??
      getAjv().getSchema(`https://junobench.dev/schemas/${name}.schema.json`) ??
      undefined;
    if (!v) throw new JunoError('E_INTERNAL', `no JSON Schema named "${name}" in ${SCHEMAS_DIR}`);
    compiled.set(name, v);
  }
  return v;
}

/** Check a value against a schema; never throws for invalid values. */
export function checkSchema(name: SchemaName, value: unknown): SchemaIssue[] {
  const v = getValidator(name);
  if (v(value)) return [];
  return simplifyIssues(v.errors ?? []);
}

/**
 * Validate and return the value typed, or throw a JunoError that names the
 * file/row and the offending field with what was expected.
 */
export function validateOrThrow<T>(
  name: SchemaName,
  value: unknown,
  location: ErrorLocation = {},
  code: ErrorCode = 'E_SCHEMA',
): T {
  const issues = checkSchema(name, value);
  if (issues.length === 0) return value as T;
  const first = issues[0]!;
  const more =
    issues.length > 1 ? ` (and ${issues.length - 1} more: ${issues.slice(1, 4).map(formatIssue).join('; ')})` : '';
  throw new JunoError(code, `not a valid ${name}: ${formatIssue(first)}${more}`, {
    location: { ...location, field: location.field ?? pointerToField(first.path) },
    hint: `see schemas/${name}.schema.json for the expected format`,
  });
}

export function formatIssue(issue: SchemaIssue): string {
  return issue.path ? `${pointerToField(issue.path)} ${issue.message}` : issue.message;
}

/** `/labels/rootCause` → `labels.rootCause`; `/steps/2/keep` → `steps[2].keep`. */
export function pointerToField(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

// ajv reports every branch of every anyOf; users want the one or two errors
// that say what to change. Keep the deepest errors and phrase them plainly.
function simplifyIssues(errors: ErrorObject[]): SchemaIssue[] {
  const relevant = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const list = relevant.length > 0 ? relevant : errors;
  const libraryPaths = new Set(
    list.filter((e) => e.schemaPath.endsWith('/$defs/canonicalLibrary/enum')).map((e) => e.instancePath),
  );
  const out: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const e of list) {
    const issue = { path: e.instancePath, message: libraryPaths.has(e.instancePath) ? LIBRARY_MESSAGE : phrase(e) };
    const key = `${issue.path} ${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  // Deeper paths first: they are the most specific.
  return out.sort((a, b) => b.path.split('/').length - a.path.split('/').length);
}

// A library label fails two branches at once (not a canonical name; not an
// allowed package name), and ajv reports each; one sentence saying both is
// what the user can act on.
const LIBRARY_MESSAGE =
  'must be a canonical library name ("tensorflow/keras", "torch", "sklearn", "PIL", "None", … — schemas/taxonomy.schema.json) ' +
  'or, for a library outside that list, its package name in lower case ("keras_nlp"); another spelling of a canonical library ' +
  '("keras", "scikit_learn", "pillow", "none") is refused: write the canonical name';

function phrase(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `is missing required property "${String(p.missingProperty)}"`;
    case 'additionalProperties':
      return `has unknown property "${String(p.additionalProperty)}"`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type':
      return `must be ${String(p.type)}`;
    default:
      return e.message ?? e.keyword;
  }
}
