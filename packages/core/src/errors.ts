/**
 * The one error base class of the toolchain (docs/design.md, "Style").
 *
 * Every error a user can cause or fix carries a stable `code` (for scripts and
 * tests), an `exitCode` (2 = bad usage or bad input, 1 = the work ran and found
 * failures, 3 = the environment is missing something, 70 = an internal error)
 * and a message that says
 * what failed, where (file, row, field) and how to fix it. Libraries throw
 * these; only the CLI turns them into exit codes and prints them.
 */
export type ErrorCode =
  | 'E_USAGE'
  | 'E_INPUT_NOT_FOUND'
  | 'E_INPUT_EMPTY'
  | 'E_INPUT_FORMAT'
  | 'E_INPUT_COLUMNS'
  | 'E_INPUT_ROW'
  | 'E_SCHEMA'
  | 'E_CRITERIA'
  | 'E_NOTEBOOK'
  | 'E_INSTANCE'
  | 'E_LABELS'
  | 'E_ENV_PYTHON'
  | 'E_ENV_ENGINE'
  | 'E_ENV_IMAGE'
  | 'E_ENV_SANDBOX'
  | 'E_RUNTIME'
  | 'E_IMAGE_BUILD'
  | 'E_PROFILE'
  | 'E_SUBSAMPLE'
  | 'E_UNSAFE_ARCHIVE'
  | 'E_SOURCE'
  | 'E_SOURCE_AUTH'
  | 'E_SOURCE_NOT_FOUND'
  | 'E_SOURCE_FORBIDDEN'
  | 'E_SOURCE_RATE_LIMIT'
  | 'E_ENV_KAGGLE'
  | 'E_ENV_NETWORK'
  | 'E_STATE'
  | 'E_RELEASE_REFUSED'
  | 'E_PUBLISH'
  | 'E_GIT'
  | 'E_GITHUB'
  | 'E_REGISTRY'
  | 'E_QUEUE'
  | 'E_ENV_QUEUE'
  | 'E_QUEUE_IDENTITY'
  | 'E_QUEUE_BLOB_LIMIT'
  | 'E_INTERNAL';

/** 70 = EX_SOFTWARE (sysexits.h): an internal error, a bug in the toolchain, never "found failures". */
export type ExitCode = 1 | 2 | 3 | 70;

export interface JunoErrorOptions {
  cause?: unknown;
  /** Where the problem is: a file path, optionally with a line/row and field. */
  location?: ErrorLocation;
  /** What the user can do about it, e.g. the command that fixes it. */
  hint?: string;
  exitCode?: ExitCode;
}

export interface ErrorLocation {
  file?: string;
  line?: number;
  row?: number;
  field?: string;
}

const DEFAULT_EXIT: Partial<Record<ErrorCode, ExitCode>> = {
  E_ENV_PYTHON: 3,
  E_ENV_ENGINE: 3,
  E_ENV_IMAGE: 3,
  E_ENV_SANDBOX: 3,
  E_ENV_QUEUE: 3,
  E_QUEUE: 1,
  E_RUNTIME: 1,
  E_IMAGE_BUILD: 1,
  E_INTERNAL: 70,
  E_SOURCE: 1,
  E_SOURCE_AUTH: 3,
  E_SOURCE_RATE_LIMIT: 1,
  E_ENV_KAGGLE: 3,
  E_ENV_NETWORK: 3,
  E_RELEASE_REFUSED: 1,
  E_GITHUB: 1,
  E_REGISTRY: 1,
};

export class JunoError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  readonly location: ErrorLocation | undefined;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: JunoErrorOptions = {}) {
    super(redactSecrets(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JunoError';
    this.code = code;
    this.exitCode = options.exitCode ?? DEFAULT_EXIT[code] ?? 2;
    this.location = options.location;
    this.hint = options.hint === undefined ? undefined : redactSecrets(options.hint);
  }

  /** "file:row: field: message" followed by the hint, for humans. */
  describe(): string {
    const where = formatLocation(this.location);
    const head = where ? `${where}: ${this.message}` : this.message;
    return this.hint ? `${head}\n  hint: ${this.hint}` : head;
  }
}

export function formatLocation(loc: ErrorLocation | undefined): string {
  if (!loc) return '';
  const parts: string[] = [];
  if (loc.file) parts.push(loc.file);
  if (loc.line !== undefined) parts.push(`line ${loc.line}`);
  if (loc.row !== undefined) parts.push(`row ${loc.row}`);
  if (loc.field) parts.push(`field "${loc.field}"`);
  return parts.join(', ');
}

export function isJunoError(e: unknown): e is JunoError {
  return e instanceof JunoError;
}

// Tokens must never reach messages or logs (octokit's rule). Patterns cover the
// credentials this toolchain handles: GitHub tokens, Kaggle keys, URL userinfo.
const SECRET_PATTERNS: RegExp[] = [
  /\b(gh[pousr]_[A-Za-z0-9]{20,})\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /("?key"?\s*[:=]\s*"?)[A-Fa-f0-9]{32}\b/g,
  /(\/\/)[^/@\s:]+:[^/@\s]+@/g,
  /(authorization:\s*(?:token|bearer)\s+)\S+/gi,
];

export function redactSecrets(text: string): string {
  let out = text;
  for (const re of SECRET_PATTERNS) {
    out = out.replace(re, (_m, p1: string | undefined) =>
      typeof p1 === 'string' && !/^gh|^github_pat/.test(p1) ? `${p1}[REDACTED]` : '[REDACTED]',
    );
  }
  return out;
}
