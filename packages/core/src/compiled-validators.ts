import { createRequire } from 'node:module';
import { writeCompiledCode } from './compiled-code.js';
import { COMPILED_VALIDATORS_ROOT, SCHEMAS_DIR, newAjv, validatorsKey } from './validate.js';

const requireHere = createRequire(import.meta.url);
// Loaded when code is written (the build), not by every process that imports this package (validate.ts says why).
const standaloneCode = (): typeof import('ajv/dist/standalone/index.js').default =>
  requireHere('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js').default;

/**
 * Each schema's validator as the standalone code ajv would compile for it at run time (its referenced schemas
 * included), by schema name: the same functions, the same errors, without the compilation.
 */
export function compileValidatorSources(dir: string = SCHEMAS_DIR): Map<string, string> {
  const ajv = newAjv({ dir, source: true });
  const toCode = standaloneCode();
  const out = new Map<string, string>();
  for (const name of Object.keys(ajv.schemas)
    .map((id) => /\/schemas\/([^/]+)\.schema\.json$/.exec(id)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort()) {
    const validate = ajv.getSchema(`https://junobench.dev/schemas/${name}.schema.json`);
    if (validate) out.set(name, toCode(ajv, validate));
  }
  return out;
}

/**
 * Writes the compiled validators of the project's schemas where validate.ts looks for them, unless they are there
 * already (compiled-code.ts). Run by tools/build-cli.mjs.
 */
export async function writeCompiledValidators(
  options: { schemasDir?: string; root?: string } = {},
): Promise<{ dir: string; written: number }> {
  const schemasDir = options.schemasDir ?? SCHEMAS_DIR;
  return writeCompiledCode({
    root: options.root ?? COMPILED_VALIDATORS_ROOT,
    prefix: 'validators',
    key: validatorsKey(schemasDir),
    files: () => new Map([...compileValidatorSources(schemasDir)].map(([name, code]) => [`${name}.cjs`, code])),
  });
}
