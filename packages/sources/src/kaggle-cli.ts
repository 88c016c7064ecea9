import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { JunoError, redactSecrets } from '@junobench/core';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a program; injected so the logic around the Kaggle CLI is testable without one. */
export type CommandRunner = (
  file: string,
  args: readonly string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
) => Promise<CommandResult>;

export const execaCommandRunner: CommandRunner = async (file, args, options) => {
  try {
    const r = await execa(file, [...args], {
      reject: false,
      env: options.env,
      extendEnv: false,
      stdin: 'ignore',
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    });
    if (r.failed && r.exitCode === undefined && !r.timedOut) {
      // The program could not be started at all (not found, not executable).
      const code = (r.cause as NodeJS.ErrnoException | undefined)?.code;
      return { exitCode: 127, stdout: '', stderr: `cannot run ${file}: ${code ?? r.shortMessage}` };
    }
    return {
      exitCode: r.exitCode ?? (r.timedOut ? 124 : 1),
      stdout: String(r.stdout ?? ''),
      stderr: String(r.stderr ?? ''),
    };
  } catch (e) {
    return { exitCode: 127, stdout: '', stderr: `cannot run ${file}: ${(e as Error).message}` };
  }
};

// The Kaggle CLI's own credentials, as its docs list them: an API token (Settings → API → Generate New Token) in
// KAGGLE_API_TOKEN or ~/.kaggle/access_token, or a legacy key (KAGGLE_USERNAME/KAGGLE_KEY, kaggle.json).
const INSTALL_HINT =
  'install the official Kaggle CLI (`pip install kaggle`) and pass --kaggle <path> or set JUNOBENCH_KAGGLE; ' +
  'credentials: an API token (Kaggle → Settings → API → Generate New Token) in KAGGLE_API_TOKEN or ~/.kaggle/access_token, or a legacy key in KAGGLE_USERNAME/KAGGLE_KEY or ~/.kaggle/kaggle.json';
const AUTH_HINT =
  'set KAGGLE_API_TOKEN to an API token (Kaggle → Settings → API → Generate New Token) or put it in ~/.kaggle/access_token; ' +
  'or, with a legacy key, set KAGGLE_USERNAME and KAGGLE_KEY, or put kaggle.json in ~/.kaggle/ (or $KAGGLE_CONFIG_DIR) with mode 600';

/**
 * The kaggle binary: `--kaggle <path>`, else `$JUNOBENCH_KAGGLE`, else
 * `kaggle` on PATH. None found (or not executable) → exit 3 with how to install it.
 */
export async function findKaggleBinary(options: { explicit?: string; env: NodeJS.ProcessEnv }): Promise<string> {
  const chosen = options.explicit ?? options.env.JUNOBENCH_KAGGLE;
  if (chosen) {
    if (await isExecutable(chosen)) return path.resolve(chosen);
    throw new JunoError('E_ENV_KAGGLE', `the Kaggle CLI "${chosen}" does not exist or is not executable`, {
      hint: INSTALL_HINT,
    });
  }
  for (const dir of (options.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'kaggle');
    if (await isExecutable(candidate)) return candidate;
  }
  throw new JunoError('E_ENV_KAGGLE', 'the Kaggle CLI (`kaggle`) was not found on PATH', { hint: INSTALL_HINT });
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const st = await stat(file);
    if (!st.isFile()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export type KaggleFailureKind = 'auth' | 'forbidden' | 'not-found' | 'rate-limit' | 'other';

/**
 * What a failed `kaggle` run means, from its output. The CLI prints the
 * HTTP error of the request that failed ("404 Client Error: Not Found for
 * url: …"; older versions "(404)\nReason: Not Found") or its own message
 * when no credentials are found, and exits 1 either way.
 */
export function classifyKaggleFailure(output: string): KaggleFailureKind {
  if (
    /You must authenticate|Could not find kaggle\.json|Missing (username|key) in configuration|\b401\b|Unauthorized/i.test(
      output,
    )
  )
    return 'auth';
  if (/\b429\b|Too Many Requests/i.test(output)) return 'rate-limit';
  if (/\b403\b|Forbidden|must accept this competition's rules/i.test(output)) return 'forbidden';
  if (/\b404\b|Not Found|Could not find (competition|dataset|kernel)/i.test(output)) return 'not-found';
  return 'other';
}

const KIND_LINE: Record<KaggleFailureKind, RegExp | undefined> = {
  auth: /You must authenticate|Could not find kaggle\.json|Missing (username|key)|\b401\b|Unauthorized/i,
  'rate-limit': /\b429\b|Too Many Requests/i,
  forbidden: /\b403\b|Forbidden|must accept/i,
  'not-found': /\b404\b|Not Found|Could not find/i,
  other: undefined,
};

/** The line of the CLI's output that says what went wrong: the one that shows the failure's kind, else the last. */
export function failureLine(output: string, kind: KaggleFailureKind): string {
  const re = KIND_LINE[kind];
  const line = re
    ? output
        .split(/\r?\n/)
        .map((l) => l.trim())
        .find((l) => re.test(l))
    : undefined;
  return line ?? lastOutputLine(output);
}

/** The last meaningful line the CLI printed (progress bars and blank lines skipped). */
export function lastOutputLine(output: string): string {
  const lines = output
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l && !/^\d+%\|/.test(l) && !/^\s*[\d.]+[kMG]?B?\/s/.test(l));
  return lines.pop() ?? '(no output)';
}

/** Remove credentials from text that may reach a message or a log. */
export function redactKnownSecrets(text: string, env: NodeJS.ProcessEnv): string {
  let out = text;
  for (const name of ['KAGGLE_KEY', 'GITHUB_TOKEN', 'KAGGLE_API_TOKEN']) {
    const v = env[name];
    if (v && v.length >= 4) out = out.split(v).join('[REDACTED]');
  }
  return redactSecrets(out);
}

export interface KaggleCliOptions {
  binary: string;
  env: NodeJS.ProcessEnv;
  run?: CommandRunner;
  /** Extra attempts after a 429 (default 4). */
  retries?: number;
  /** First backoff delay; doubled each retry (default 2000 ms, or $JUNOBENCH_KAGGLE_BACKOFF_MS). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Told about each retry, for progress output. */
  onRetry?: (message: string) => void;
}

export interface KaggleDownloadProgress {
  (bytes: number): void;
}

/**
 * The official `kaggle` command-line tool, run with execa. Each method runs
 * one command the real CLI offers and maps its failures to JunoErrors that
 * name the ref: not authenticated (401, no kaggle.json) → exit 3; forbidden
 * (private, rules not accepted) and not found → exit 2; rate-limited → retried
 * with exponential backoff, then exit 1; anything else → exit 1 with the CLI's
 * own last line. Credentials stay in the CLI's environment and are redacted
 * from everything it prints.
 */
export class KaggleCli {
  readonly binary: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly run: CommandRunner;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly onRetry: ((message: string) => void) | undefined;

  constructor(options: KaggleCliOptions) {
    this.binary = options.binary;
    this.env = options.env;
    this.run = options.run ?? execaCommandRunner;
    this.retries = options.retries ?? 4;
    const envBackoff = Number(options.env.JUNOBENCH_KAGGLE_BACKOFF_MS);
    this.backoffMs =
      options.backoffMs ??
      (Number.isFinite(envBackoff) && envBackoff >= 0 && options.env.JUNOBENCH_KAGGLE_BACKOFF_MS ? envBackoff : 2000);
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.onRetry = options.onRetry;
  }

  /** `kaggle kernels pull <owner>/<slug> -p <dir> -m`: the notebook and kernel-metadata.json. */
  async pullKernel(ref: string, dir: string): Promise<void> {
    await this.exec(['kernels', 'pull', ref, '-p', dir, '-m'], { what: 'kernel', ref });
  }

  /** `kaggle datasets metadata <owner>/<slug> -p <dir>`: dataset-metadata.json (title, licences). */
  async datasetMetadata(ref: string, dir: string): Promise<void> {
    await this.exec(['datasets', 'metadata', ref, '-p', dir], { what: 'dataset', ref });
  }

  /** `kaggle datasets download <owner>/<slug> -p <dir>`: one zip; returns its path. */
  async downloadDataset(ref: string, dir: string, onBytes?: KaggleDownloadProgress): Promise<string> {
    await this.exec(['datasets', 'download', ref, '-p', dir], {
      what: 'dataset',
      ref,
      watch: onBytes ? { dir, onBytes } : undefined,
    });
    return this.downloaded(dir, ref);
  }

  /** `kaggle competitions download -c <name> -p <dir>`: one zip; returns its path. */
  async downloadCompetition(name: string, dir: string, onBytes?: KaggleDownloadProgress): Promise<string> {
    await this.exec(['competitions', 'download', '-c', name, '-p', dir], {
      what: 'competition',
      ref: name,
      watch: onBytes ? { dir, onBytes } : undefined,
    });
    return this.downloaded(dir, name);
  }

  private async downloaded(dir: string, ref: string): Promise<string> {
    const files = (await readdir(dir)).filter((f) => !f.startsWith('.'));
    if (files.length !== 1) {
      throw new JunoError(
        'E_SOURCE',
        `kaggle downloaded ${files.length === 0 ? 'nothing' : `${files.length} files (${files.join(', ')})`} for ${ref}; expected one archive`,
        {
          location: { file: dir },
          hint: 'check the Kaggle CLI version (`kaggle --version`); junobench expects `datasets download` to write one <slug>.zip',
        },
      );
    }
    return path.join(dir, files[0]!);
  }

  private async exec(
    args: string[],
    ctx: {
      what: 'kernel' | 'dataset' | 'competition';
      ref: string;
      watch?: { dir: string; onBytes: KaggleDownloadProgress };
    },
  ): Promise<CommandResult> {
    for (let attempt = 0; ; attempt++) {
      const stopWatch = ctx.watch ? watchBytes(ctx.watch.dir, ctx.watch.onBytes) : undefined;
      let r: CommandResult;
      try {
        r = await this.run(this.binary, args, { env: this.env, timeoutMs: 6 * 3600_000 });
      } finally {
        await stopWatch?.();
      }
      if (r.exitCode === 0) return r;
      const output = redactKnownSecrets(`${r.stdout}\n${r.stderr}`, this.env);
      if (r.exitCode === 127 && /^cannot run /m.test(output)) {
        throw new JunoError('E_ENV_KAGGLE', `the Kaggle CLI could not be started: ${lastOutputLine(output)}`, {
          hint: INSTALL_HINT,
        });
      }
      const kind = classifyKaggleFailure(output);
      const last = failureLine(output, kind);
      if (kind === 'rate-limit' && attempt < this.retries) {
        const delay = this.backoffMs * 2 ** attempt;
        this.onRetry?.(
          `Kaggle rate limit (429) on ${ctx.ref}: retrying in ${(delay / 1000).toFixed(1)} s (attempt ${attempt + 2} of ${this.retries + 1})`,
        );
        await this.sleep(delay);
        continue;
      }
      throw kaggleError(kind, ctx, last, attempt + 1);
    }
  }
}

function kaggleError(
  kind: KaggleFailureKind,
  ctx: { what: string; ref: string },
  last: string,
  attempts: number,
): JunoError {
  const subject = `Kaggle ${ctx.what} ${ctx.ref}`;
  switch (kind) {
    case 'auth':
      return new JunoError('E_SOURCE_AUTH', `not authenticated with Kaggle (fetching ${subject}): ${last}`, {
        hint: AUTH_HINT,
      });
    case 'forbidden':
      return new JunoError(
        'E_SOURCE_FORBIDDEN',
        `Kaggle refused access to ${subject} (403 Forbidden): ${ctx.what === 'competition' ? "the competition's rules have not been accepted with this account" : `the ${ctx.what} is private or not shared with this account`}`,
        {
          hint:
            ctx.what === 'competition'
              ? `accept the rules at https://www.kaggle.com/competitions/${ctx.ref}/rules with the account in your credentials, then run the command again`
              : `only public ${ctx.what}s can be collected; check the ref, or sign in with an account that can see it`,
        },
      );
    case 'not-found':
      return new JunoError('E_SOURCE_NOT_FOUND', `${subject} was not found on Kaggle (404): ${last}`, {
        hint:
          ctx.what === 'kernel'
            ? 'check the ref: it is <owner>/<kernel-slug> as in https://www.kaggle.com/code/<owner>/<kernel-slug>'
            : 'check the ref on kaggle.com',
      });
    case 'rate-limit':
      return new JunoError(
        'E_SOURCE_RATE_LIMIT',
        `Kaggle kept rate-limiting requests for ${subject} (429 Too Many Requests, ${attempts} attempts)`,
        {
          hint: 'wait a few minutes and run the command again',
        },
      );
    default:
      return new JunoError('E_SOURCE', `the Kaggle CLI failed on ${subject}: ${last}`, {
        hint: 'run the same kaggle command by hand to see its full output',
      });
  }
}

// Download progress in bytes: the size of the files appearing in the download
// folder, sampled while the CLI runs (its own progress bar goes to a pipe).
function watchBytes(dir: string, onBytes: KaggleDownloadProgress): () => Promise<void> {
  let last = -1;
  const sample = async () => {
    let total = 0;
    try {
      for (const f of await readdir(dir)) total += (await stat(path.join(dir, f))).size;
    } catch {
      return;
    }
    if (total !== last) {
      last = total;
      onBytes(total);
    }
  };
  const timer = setInterval(() => void sample(), 250);
  return async () => {
    clearInterval(timer);
    await sample();
  };
}
