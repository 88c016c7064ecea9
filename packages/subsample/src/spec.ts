import {
  JunoError,
  validateOrThrow,
  type ErrorLocation,
  type SubsampleSpec,
  type SubsampleStep,
} from '@junobench/core';

/**
 * Validate a subsampling spec (from `--spec`, instance.json or flags) against
 * schemas/subsample-spec.schema.json, plus the rules a schema cannot say
 * (exactly one of rows/fraction, no two steps on the same path).
 */
export function parseSubsampleSpec(value: unknown, location: ErrorLocation = {}): SubsampleSpec {
  if (value && typeof value === 'object' && Array.isArray((value as { steps?: unknown }).steps)) {
    // Check each step's method first: the schema's oneOf would otherwise
    // report every branch's complaint for a simple typo in `method`.
    const steps = (value as { steps: unknown[] }).steps;
    steps.forEach((s, i) => {
      const method = (s as { method?: unknown } | null)?.method;
      if (typeof method !== 'string' || !STEP_METHODS.includes(method as SubsampleStep['method'])) {
        throw new JunoError('E_SCHEMA', `unknown subsampling method ${JSON.stringify(method)}`, {
          location: { ...location, field: `steps[${i}].method` },
          hint: `use one of: ${STEP_METHODS.join(', ')}`,
        });
      }
    });
  }
  const spec = validateOrThrow<SubsampleSpec>('subsample-spec', value, location);
  const seen = new Map<string, number>();
  spec.steps.forEach((step, i) => {
    const field = `steps[${i}].parameters`;
    const p = (step as { parameters?: Record<string, unknown> }).parameters ?? {};
    if (step.method === 'table')
      exactlyOne(p, ['rows', 'fraction'], { ...location, field }, 'e.g. { "rows": 5000 } or { "fraction": 0.01 }');
    if (step.method === 'images')
      exactlyOne(
        p,
        ['perClass', 'fraction'],
        { ...location, field },
        'e.g. { "perClass": 20 } or { "fraction": 0.05 }',
      );
    const norm = normalizeDataPath(step.path);
    const prev = seen.get(norm);
    if (prev !== undefined) {
      throw new JunoError('E_SCHEMA', `two steps name the same path "${norm}" (steps ${prev} and ${i})`, {
        location: { ...location, field: `steps[${i}].path` },
        hint: 'give each file or folder of data/ at most one step',
      });
    }
    seen.set(norm, i);
  });
  if (spec.source.kind === 'generator' && !spec.source.generator) {
    throw new JunoError('E_SCHEMA', 'a source of kind "generator" needs the generator name', {
      location: { ...location, field: 'source.generator' },
      hint: 'e.g. { "kind": "generator", "generator": "retail-sales", "seed": 3 }',
    });
  }
  return spec;
}

export const STEP_METHODS: readonly SubsampleStep['method'][] = [
  'table',
  'images',
  'archive',
  'synthetic-table',
  'copy',
  'drop',
];

function exactlyOne(p: Record<string, unknown>, keys: string[], location: ErrorLocation, example: string): void {
  const given = keys.filter((k) => p[k] !== undefined);
  if (given.length !== 1) {
    throw new JunoError(
      'E_SCHEMA',
      given.length === 0 ? `needs one of ${keys.join(' or ')}` : `gives both ${given.join(' and ')}; choose one`,
      {
        location,
        hint: example,
      },
    );
  }
}

/** `./a//b/` → `a/b`. Paths in specs are relative to data/ and never leave it. */
export function normalizeDataPath(p: string): string {
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.some((s) => s === '..') || p.startsWith('/') || p.includes('\\')) {
    throw new JunoError('E_SCHEMA', `path "${p}" leaves data/`, {
      hint: 'paths in a subsampling spec are relative to data/, with `/` and without `..`',
    });
  }
  return parts.join('/');
}
