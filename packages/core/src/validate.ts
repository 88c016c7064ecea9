import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { JunoError, type ErrorCode, type ErrorLocation } from './errors.js';

/** Where the project's JSON Schemas live: the single source of truth for every format. */
export const SCHEMAS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../schemas');

/** Schema names are file names without `.schema.json` (e.g. `crash-record`). */
export type SchemaName = string;

export interface SchemaIssue {
  /** JSON pointer into the value, e.g. `/labels/rootCause` ('' = the whole value). */
  path: string;
  message: string;
}

let ajvSingleton: Ajv2020 | undefined;
const compiled = new Map<SchemaName, ValidateFunction>();

function getAjv(): Ajv2020 {
  if (ajvSingleton) return ajvSingleton;
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  for (const file of readdirSync(SCHEMAS_DIR).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    ajv.addSchema(JSON.parse(readFileSync(path.join(SCHEMAS_DIR, file), 'utf8')) as object);
  }
  ajvSingleton = ajv;
  return ajv;
}

function getValidator(name: SchemaName): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    const ajv = getAjv();
    v = ajv.getSchema(`https://junobench.dev/schemas/${name}.schema.json`);
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
