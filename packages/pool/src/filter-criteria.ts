import {
  JunoError,
  checkSchema,
  compileLinearRegExp,
  formatIssue,
  linearRegExpProblem,
  readJsonFile,
  suggestClosest,
  type CrashRecord,
  type FieldPredicate,
  type FilterCriteria,
  type Predicate,
} from '@junobench/core';

/** The tests a field predicate can make (docs/formats.md, "Filter criteria"). */
export const FIELD_TESTS = ['equals', 'in', 'notIn', 'startsWith', 'matches', 'exists'] as const;
export type FieldTest = (typeof FIELD_TESTS)[number];

const COMBINATORS = ['all', 'any', 'not'] as const;
const PREDICATE_KEYS: readonly string[] = [...COMBINATORS, 'field', ...FIELD_TESTS, 'ignoreCase'];

/** Record paths a criteria file may name, besides `columns.<original column name>`. */
export const RECORD_FIELDS = [
  'id',
  'notebook',
  'source',
  'url',
  'ename',
  'evalue',
  'traceback',
  'imports',
  'predictedLibrary',
  'labels.library',
  'labels.crashType',
  'labels.rootCause',
  'labels.pipelineStage',
  'labels.isMlBug',
] as const;

type Scalar = string | number | boolean | null;
type Value = Scalar | undefined | readonly string[];

/** A compiled predicate: fast enough for millions of records. */
export type RecordTest = (record: CrashRecord) => boolean;

export interface CompiledStep {
  name: string;
  action: 'keep' | 'drop';
  test: RecordTest;
}

function criteriaError(at: string, message: string, file?: string, hint?: string): JunoError {
  return new JunoError('E_CRITERIA', `${at}: ${message}`, {
    location: { ...(file ? { file } : {}), field: at },
    hint:
      hint ?? 'see docs/formats.md ("Filter criteria") and schemas/filter-criteria.schema.json for the criteria format',
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function didYouMean(value: string, allowed: readonly string[]): string {
  const s = suggestClosest(value, allowed);
  return s ? ` — did you mean "${s}"?` : '';
}

function checkField(field: unknown, at: string, file?: string): string {
  if (typeof field !== 'string' || field.trim() === '') {
    throw criteriaError(`${at}.field`, 'must be a record path such as "ename" or "columns.label_root_cause"', file);
  }
  if (field.startsWith('columns.')) {
    if (field.length === 'columns.'.length)
      throw criteriaError(`${at}.field`, 'name a column after "columns." (e.g. "columns.nb_source")', file);
    return field;
  }
  if (!(RECORD_FIELDS as readonly string[]).includes(field)) {
    throw criteriaError(
      `${at}.field`,
      `unknown field "${field}"${didYouMean(field, [...RECORD_FIELDS, 'columns.<name>'])}`,
      file,
      `a field is one of ${RECORD_FIELDS.join(', ')}, or columns.<original column name>`,
    );
  }
  return field;
}

/** Structural check of one predicate, with errors that point at it (`steps[2].keep.any[0]`). */
function checkPredicate(p: unknown, at: string, file?: string, step?: string): void {
  if (!isObject(p))
    throw criteriaError(at, 'a predicate must be an object such as { "field": "ename", "equals": "KeyError" }', file);
  const keys = Object.keys(p);
  for (const k of keys) {
    if (!PREDICATE_KEYS.includes(k)) {
      throw criteriaError(
        at,
        `unknown predicate "${k}"${didYouMean(k, PREDICATE_KEYS)}`,
        file,
        `predicates are ${FIELD_TESTS.join(', ')} on a field, combined with all, any, not`,
      );
    }
  }
  const combinators = keys.filter((k) => (COMBINATORS as readonly string[]).includes(k));
  if (combinators.length > 0) {
    if (keys.length !== 1) {
      throw criteriaError(
        at,
        `"${combinators[0]}" must be alone in its object; found also ${keys
          .filter((k) => k !== combinators[0])
          .map((k) => `"${k}"`)
          .join(', ')}`,
        file,
      );
    }
    const c = combinators[0]!;
    if (c === 'not') {
      checkPredicate(p.not, `${at}.not`, file, step);
      return;
    }
    const list = p[c];
    if (!Array.isArray(list) || list.length === 0)
      throw criteriaError(`${at}.${c}`, 'must be a non-empty list of predicates', file);
    list.forEach((q, i) => checkPredicate(q, `${at}.${c}[${i}]`, file, step));
    return;
  }
  if (!('field' in p)) throw criteriaError(at, 'a field predicate needs "field" (or use all, any, not)', file);
  checkField(p.field, at, file);
  const tests = keys.filter((k) => (FIELD_TESTS as readonly string[]).includes(k));
  if (tests.length !== 1) {
    throw criteriaError(
      at,
      tests.length === 0
        ? `no test on "${String(p.field)}": add one of ${FIELD_TESTS.join(', ')}`
        : `one test per predicate, found ${tests.join(' and ')}: combine them with "all" or "any"`,
      file,
    );
  }
  const t = tests[0] as FieldTest;
  const v = p[t];
  switch (t) {
    case 'equals':
      if (!isScalar(v)) throw criteriaError(`${at}.equals`, 'must be a string, number, boolean or null', file);
      break;
    case 'in':
    case 'notIn':
      if (!Array.isArray(v) || !v.every(isScalar))
        throw criteriaError(`${at}.${t}`, 'must be a list of strings, numbers, booleans or null', file);
      break;
    case 'startsWith':
      if (typeof v !== 'string') throw criteriaError(`${at}.startsWith`, 'must be a string', file);
      break;
    case 'matches':
      if (typeof v !== 'string') throw criteriaError(`${at}.matches`, 'must be a regular expression as a string', file);
      try {
        new RegExp(v);
      } catch (e) {
        throw criteriaError(`${at}.matches`, `invalid regular expression: ${(e as Error).message}`, file);
      }
      {
        const problem = linearRegExpProblem(v);
        if (problem) {
          throw new JunoError(
            'E_CRITERIA',
            `${at}.matches${step ? ` (step "${step}")` : ''}: /${v}/ needs a backtracking engine (${problem}); patterns run on a linear-time engine so that no record can hang the filter`,
            {
              location: { ...(file ? { file } : {}), field: `${at}.matches` },
              hint: 'matches uses RE2 syntax: JavaScript regular expressions without backreferences (\\1) or lookarounds ((?=…), (?!…)); express a lookahead with "all"/"not" predicates instead',
            },
          );
        }
      }
      break;
    case 'exists':
      if (typeof v !== 'boolean') throw criteriaError(`${at}.exists`, 'must be true or false', file);
      break;
  }
  if ('ignoreCase' in p && typeof p.ignoreCase !== 'boolean')
    throw criteriaError(`${at}.ignoreCase`, 'must be true or false', file);
}

/**
 * Check a criteria document and return it typed. The structural walk gives
 * the precise message (`steps[2].keep.any[0]: unknown predicate "startswith" —
 * did you mean "startsWith"?`); the JSON Schema is checked as well so the two
 * never disagree silently.
 */
export function validateCriteria(value: unknown, file?: string): FilterCriteria {
  if (!isObject(value)) throw criteriaError('criteria', 'must be an object { "steps": [ … ] }', file);
  for (const k of Object.keys(value)) {
    if (k !== 'steps' && k !== 'description')
      throw criteriaError(k, `unknown property "${k}"${didYouMean(k, ['steps', 'description'])}`, file);
  }
  if (value.description !== undefined && typeof value.description !== 'string')
    throw criteriaError('description', 'must be a string', file);
  const steps = value.steps;
  if (!Array.isArray(steps) || steps.length === 0)
    throw criteriaError('steps', 'must be a non-empty list of { "name", "keep" | "drop" } steps', file);
  steps.forEach((step, i) => {
    const at = `steps[${i}]`;
    if (!isObject(step))
      throw criteriaError(at, 'a step must be an object { "name": …, "keep": … } or { "name": …, "drop": … }', file);
    for (const k of Object.keys(step)) {
      if (!['name', 'keep', 'drop'].includes(k))
        throw criteriaError(at, `unknown property "${k}"${didYouMean(k, ['name', 'keep', 'drop'])}`, file);
    }
    if (typeof step.name !== 'string' || step.name.trim() === '')
      throw criteriaError(`${at}.name`, 'every step needs a name (it labels the funnel report)', file);
    const actions = ['keep', 'drop'].filter((k) => k in step);
    if (actions.length !== 1)
      throw criteriaError(
        at,
        actions.length === 0 ? 'needs "keep" or "drop"' : 'has both "keep" and "drop": split it into two steps',
        file,
      );
    checkPredicate(step[actions[0]!], `${at}.${actions[0]}`, file, step.name);
  });
  const issues = checkSchema('filter-criteria', value);
  if (issues.length > 0) {
    const first = issues[0]!;
    throw criteriaError(
      first.path
        ? first.path
            .slice(1)
            .replace(/\/(\d+)/g, '[$1]')
            .replace(/\//g, '.')
        : 'criteria',
      formatIssue({ ...first, path: '' }),
      file,
    );
  }
  return value as unknown as FilterCriteria;
}

/** Read and check a criteria file; errors name the file and the bad step. */
export async function readCriteria(file: string): Promise<FilterCriteria> {
  const value = await readJsonFile(file).catch((e: unknown) => {
    if (e instanceof JunoError && e.code !== 'E_INPUT_NOT_FOUND') {
      throw new JunoError('E_CRITERIA', `the criteria file is not valid JSON: ${e.message}`, {
        location: { file },
        hint: 'fix the JSON syntax',
        cause: e,
      });
    }
    throw e;
  });
  return validateCriteria(value, file);
}

/** Value at a record path; `columns.<name>` takes the rest verbatim (column names may contain dots). */
export function readField(record: CrashRecord, field: string): Value {
  if (field.startsWith('columns.')) return record.columns[field.slice('columns.'.length)];
  switch (field) {
    case 'labels.library':
      return record.labels?.library;
    case 'labels.crashType':
      return record.labels?.crashType;
    case 'labels.rootCause':
      return record.labels?.rootCause;
    case 'labels.pipelineStage':
      return record.labels?.pipelineStage;
    case 'labels.isMlBug':
      return record.labels?.isMlBug;
    default:
      return (record as unknown as Record<string, Value>)[field];
  }
}

const NUMERIC = /^-?\d+(?:\.\d+)?$/;

function sameValue(actual: Scalar, expected: Scalar, ignoreCase: boolean): boolean {
  if (expected === null) return actual === null;
  if (actual === null) return false;
  if (typeof actual === typeof expected) {
    if (typeof actual === 'string' && ignoreCase) return actual.toLowerCase() === (expected as string).toLowerCase();
    return actual === expected;
  }
  // Sheets give "1" in CSV and 1 in .xlsx for the same cell: compare numbers as numbers.
  if (typeof actual === 'number' && typeof expected === 'string' && NUMERIC.test(expected.trim()))
    return actual === Number(expected);
  if (typeof actual === 'string' && typeof expected === 'number' && NUMERIC.test(actual.trim()))
    return Number(actual) === expected;
  return false;
}

/** Arrays (traceback, imports) match when any element does. */
function anyElement(v: Value, test: (x: Scalar) => boolean): boolean {
  if (v === undefined) return false;
  if (Array.isArray(v)) return v.some((x) => test(x as Scalar));
  return test(v as Scalar);
}

function compileField(p: FieldPredicate): RecordTest {
  const field = p.field;
  const ic = p.ignoreCase === true;
  const get = (r: CrashRecord) => readField(r, field);
  if (p.equals !== undefined) {
    const expected = p.equals;
    if (expected === null) return (r) => get(r) === null || get(r) === undefined;
    return (r) => anyElement(get(r), (x) => sameValue(x, expected, ic));
  }
  if (p.in !== undefined) {
    const list = p.in;
    const wantsNull = list.includes(null);
    return (r) => {
      const v = get(r);
      if (v === undefined || v === null) return wantsNull;
      return anyElement(v, (x) => list.some((e) => sameValue(x, e, ic)));
    };
  }
  if (p.notIn !== undefined) {
    const list = p.notIn;
    const rejectsNull = list.includes(null);
    return (r) => {
      const v = get(r);
      if (v === undefined || v === null) return !rejectsNull;
      return !anyElement(v, (x) => list.some((e) => sameValue(x, e, ic)));
    };
  }
  if (p.startsWith !== undefined) {
    const prefix = ic ? p.startsWith.toLowerCase() : p.startsWith;
    return (r) =>
      anyElement(get(r), (x) => x !== null && (ic ? String(x).toLowerCase() : String(x)).startsWith(prefix));
  }
  if (p.matches !== undefined) {
    let re: ReturnType<typeof compileLinearRegExp>;
    try {
      re = compileLinearRegExp(p.matches, ic);
    } catch (e) {
      throw new JunoError(
        'E_CRITERIA',
        `matches: /${p.matches}/ cannot run on the linear-time engine: ${(e as Error).message}`,
        { cause: e },
      );
    }
    return (r) => anyElement(get(r), (x) => x !== null && re.test(String(x)));
  }
  if (p.exists !== undefined) {
    const want = p.exists;
    return (r) => {
      const v = get(r);
      const present = v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
      return present === want;
    };
  }
  throw new JunoError('E_CRITERIA', `predicate on "${field}" has no test`);
}

/** Compile a (validated) predicate to a function. */
export function compilePredicate(p: Predicate): RecordTest {
  if ('all' in p) {
    const parts = p.all.map(compilePredicate);
    return (r) => parts.every((t) => t(r));
  }
  if ('any' in p) {
    const parts = p.any.map(compilePredicate);
    return (r) => parts.some((t) => t(r));
  }
  if ('not' in p) {
    const inner = compilePredicate(p.not);
    return (r) => !inner(r);
  }
  return compileField(p);
}

/** Validate and compile the steps of a criteria document. */
export function compileCriteria(criteria: unknown, file?: string): CompiledStep[] {
  const valid = validateCriteria(criteria, file);
  return valid.steps.map((s) => {
    const action = s.keep !== undefined ? 'keep' : 'drop';
    return { name: s.name, action, test: compilePredicate((s.keep ?? s.drop)!) };
  });
}
