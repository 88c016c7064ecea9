import { createHash } from 'node:crypto';
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { JunoError, stripUrlCredentials } from '@junobench/core';
import { redactKnownSecrets } from './kaggle-cli.js';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

const GithubOctokit = Octokit.plugin(throttling, retry);
/** An Octokit with the REST methods (and, as created here, throttling and retry). */
export type GithubClient = Octokit;

export interface GithubClientOptions {
  env: NodeJS.ProcessEnv;
  /** Rate-limit waits and retries, for progress output (already redacted). */
  onNotice?: (message: string) => void;
  /** Longest wait for a rate limit to reset before giving up (default 60 s). */
  maxWaitSeconds?: number;
}

/**
 * Octokit with the throttling and retry plugins, against `$GITHUB_API_URL`
 * (default the public API), authenticated with `$GITHUB_TOKEN` when set.
 * Primary and secondary rate limits are waited out (twice at most, and never
 * longer than `maxWaitSeconds`); 5xx answers are retried by plugin-retry.
 * Octokit's own log lines are redacted before they reach `onNotice`.
 */
export function createGithubClient(options: GithubClientOptions): GithubClient {
  return createThrottledOctokit(options);
}

function createThrottledOctokit(options: GithubClientOptions): Octokit {
  const env = options.env;
  const notice = (m: string) => options.onNotice?.(redactKnownSecrets(m, env));
  const maxWait = options.maxWaitSeconds ?? 60;
  const token = env.GITHUB_TOKEN?.trim();
  return new GithubOctokit({
    baseUrl: (env.GITHUB_API_URL?.trim() || DEFAULT_GITHUB_API_URL).replace(/\/+$/, ''),
    ...(token ? { auth: token } : {}),
    userAgent: 'junobench-sources',
    log: { debug: () => undefined, info: () => undefined, warn: notice, error: notice },
    throttle: {
      onRateLimit: (retryAfter: number, req: { method: string; url: string }, _o: unknown, retryCount: number) => {
        if (retryCount >= 2 || retryAfter > maxWait) return false;
        notice(`GitHub rate limit reached (${req.method} ${req.url}): retrying in ${retryAfter} s`);
        return true;
      },
      onSecondaryRateLimit: (
        retryAfter: number,
        req: { method: string; url: string },
        _o: unknown,
        retryCount: number,
      ) => {
        if (retryCount >= 2 || retryAfter > maxWait) return false;
        notice(`GitHub secondary rate limit (${req.method} ${req.url}): retrying in ${retryAfter} s`);
        return true;
      },
    },
    retry: { retries: 2 },
  });
}

interface HttpishError {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
  code?: string;
  cause?: unknown;
}

/** A JunoError for a failed GitHub request about `subject` (a ref as the user wrote it). */
export function githubError(e: unknown, subject: string, env: NodeJS.ProcessEnv): JunoError {
  const err = e as HttpishError;
  const status = typeof err?.status === 'number' ? err.status : undefined;
  const message = redactKnownSecrets(String(err?.message ?? e), env)
    .split('\n')[0]!
    .replace(/ - https:\/\/docs\.github\.com\S*/, '');
  const tokenSet = Boolean(env.GITHUB_TOKEN?.trim());
  if (status === 401) {
    return new JunoError(
      'E_SOURCE_AUTH',
      `GitHub rejected the token in GITHUB_TOKEN (401 ${message}) while fetching ${subject}`,
      {
        hint: 'set GITHUB_TOKEN to a valid token (or unset it: public repositories need none)',
      },
    );
  }
  const remaining = err?.response?.headers?.['x-ratelimit-remaining'];
  if ((status === 403 || status === 429) && (remaining === '0' || /rate limit/i.test(message))) {
    return new JunoError(
      'E_SOURCE_RATE_LIMIT',
      `GitHub kept rate-limiting requests for ${subject} (${status}: ${message})`,
      {
        hint: tokenSet
          ? 'wait for the limit to reset (see `x-ratelimit-reset`) and run the command again'
          : 'set GITHUB_TOKEN (5,000 requests an hour instead of 60), or wait and run the command again',
      },
    );
  }
  if (status === 403) {
    return new JunoError('E_SOURCE_FORBIDDEN', `GitHub refused access to ${subject} (403: ${message})`, {
      hint: 'the repository may be private: set GITHUB_TOKEN to a token that can read it',
    });
  }
  if (status === 404 || status === 422) {
    return new JunoError('E_SOURCE_NOT_FOUND', `${subject} was not found on GitHub (${status}: ${message})`, {
      hint: tokenSet
        ? 'check the owner, repository, path and ref'
        : 'check the owner, repository, path and ref; a private repository needs GITHUB_TOKEN',
    });
  }
  // Octokit reports a request that never got an answer (refused, no DNS, a malformed URL) as status 500
  // without a response: that is the network or the configuration, not GitHub answering 500.
  if (status === undefined || (status === 500 && err?.response === undefined)) {
    const api = stripUrlCredentials(env.GITHUB_API_URL?.trim() || DEFAULT_GITHUB_API_URL).url;
    return new JunoError(
      'E_ENV_NETWORK',
      `cannot reach the GitHub API at ${api} (${message}) while fetching ${subject}`,
      {
        hint: 'check the network, and GITHUB_API_URL when it is set (an http(s) URL of the API, e.g. https://api.github.com)',
        cause: e,
      },
    );
  }
  return new JunoError('E_SOURCE', `GitHub answered ${status} for ${subject}: ${message}`, { cause: e });
}

/** Git's object id of a blob: sha1("blob <size>\0" + content). */
export function gitBlobSha(content: Uint8Array): string {
  return createHash('sha1').update(`blob ${content.byteLength}\0`).update(content).digest('hex');
}
