import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type AjvDraft04 from 'ajv-draft-04';
import type { Options } from 'ajv-draft-04';
import { SCHEMAS_DIR, compiledCodeLoader, writeCompiledCode } from '@junobench/core';

// The official nbformat schemas (draft-04), one per minor version, as nbformat itself validates: a notebook is
// checked against the schema of its own nbformat_minor (4.5 added cell ids; an older file must not need them).
export const NBFORMAT_DIR = path.join(SCHEMAS_DIR, 'vendor/nbformat');
export const LATEST_MINOR = 5;
const OPTIONS = { allErrors: false, strict: false } as const satisfies Options;

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Where tools/build-cli.mjs writes the compiled validators (core's compiled-code.ts). */
const COMPILED_ROOT = path.resolve(HERE, '../dist');
const requireHere = createRequire(import.meta.url);
// ajv is loaded only where a validator is compiled here (no compiled code, or the build writing it): a process that
// loads the compiled validators never loads ajv's compiler (core's validate.ts says what that saves).
const standaloneCode = (): typeof import('ajv/dist/standalone/index.js').default =>
  requireHere('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js').default;

function schemaFile(minor: number): string {
  return path.join(NBFORMAT_DIR, `nbformat.v4.${minor}.schema.json`);
}

/** What the compiled validators are made from: ajv's versions, the options, this file and the schemas' bytes. */
export function nbformatValidatorsKey(): string {
  const h = createHash('sha256');
  const version = (pkg: string) => (requireHere(`${pkg}/package.json`) as { version: string }).version;
  h.update(JSON.stringify([version('ajv'), version('ajv-draft-04'), OPTIONS]));
  h.update(readFileSync(fileURLToPath(import.meta.url)));
  for (let m = 0; m <= LATEST_MINOR; m++) h.update(readFileSync(schemaFile(m)));
  return h.digest('hex').slice(0, 16);
}

function newAjv(source: boolean): AjvDraft04.default {
  const { default: Ajv } = requireHere('ajv-draft-04') as typeof import('ajv-draft-04');
  return new Ajv({ ...OPTIONS, ...(source ? { code: { source: true } } : {}) });
}

const loadCompiled = compiledCodeLoader(COMPILED_ROOT, 'nbformat', nbformatValidatorsKey);

/** The validator of nbformat 4.`minor`: compiled at build time when it can be, else here. */
export function compileNbformatValidator(minor: number): AjvDraft04.ValidateFunction {
  const compiled = loadCompiled(`v4.${minor}.cjs`) as AjvDraft04.ValidateFunction | undefined;
  return compiled ?? newAjv(false).compile(JSON.parse(readFileSync(schemaFile(minor), 'utf8')) as object);
}

/** Each minor version's validator as standalone code (file name → code). */
export function compileNbformatSources(): Map<string, string> {
  const out = new Map<string, string>();
  const toCode = standaloneCode();
  for (let m = 0; m <= LATEST_MINOR; m++) {
    const ajv = newAjv(true);
    const validate = ajv.compile(JSON.parse(readFileSync(schemaFile(m), 'utf8')) as object);
    out.set(`v4.${m}.cjs`, toCode(ajv, validate));
  }
  return out;
}

/** Writes them where compileNbformatValidator looks (run by tools/build-cli.mjs). */
export async function writeCompiledNbformat(root: string = COMPILED_ROOT): Promise<{ dir: string; written: number }> {
  return writeCompiledCode({ root, prefix: 'nbformat', key: nbformatValidatorsKey(), files: compileNbformatSources });
}
