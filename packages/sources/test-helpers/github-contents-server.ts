// A local stand-in for the GitHub REST API (the endpoints junobench's
// sources package uses), on 127.0.0.1, owned by the tests: octokit talks to
// it through GITHUB_API_URL. It answers as api.github.com does:
//   GET /repos/{o}/{r}                          repository (default branch, visibility)
//   GET /repos/{o}/{r}/commits/{ref}            a branch, tag or SHA → the commit
//   GET /repos/{o}/{r}/contents/{path}?ref=     the file; over 1 MB the default media type is
//                                                refused (403 "This API returns blobs up to 1 MB",
//                                                code too_large) and the object media type answers
//                                                `content` "" and `encoding` "none" (fetch it as a blob)
//   GET /repos/{o}/{r}/git/blobs/{sha}          base64 content, up to 100 MB
//   GET /repos/{o}/{r}/license?ref=             the detected licence, 404 without one
// with the rate-limit headers on every answer, "Bad credentials" (401) for a
// wrong token, 404 for a private repository without a token, and on demand
// a secondary rate limit (403 with retry-after) or an exhausted primary one.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeLicense {
  spdx_id: string;
  name: string;
  key: string;
}

interface Repo {
  defaultBranch: string;
  private: boolean;
  license: FakeLicense | null;
  refs: Map<string, string>;
  commits: Map<string, Map<string, Buffer>>;
}

export interface RecordedRequest {
  method: string;
  url: string;
  authorization?: string;
}

type Fault = { kind: 'secondary' } | { kind: 'primary'; resetInSeconds: number } | { kind: 'status'; status: number };

export function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

export class GithubContentsServer {
  readonly requests: RecordedRequest[] = [];
  private readonly repos = new Map<string, Repo>();
  private readonly faults: Fault[] = [];
  private server: http.Server | undefined;
  private counter = 0;
  private remaining = 5000;
  /** When set, requests must carry `authorization: token <it>` (or bearer); others get 401. */
  requireToken: string | undefined;

  get url(): string {
    const a = this.server?.address() as AddressInfo | undefined;
    if (!a) throw new Error('the fake GitHub server is not started');
    return `http://127.0.0.1:${a.port}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      try {
        this.handle(req, res);
      } catch (e) {
        this.send(res, 500, { message: `fake server error: ${(e as Error).message}` });
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A repository with one commit on `branch` holding `files`; returns the commit SHA. */
  addRepo(
    fullName: string,
    files: Record<string, string | Buffer>,
    options: { branch?: string; license?: FakeLicense | null; private?: boolean } = {},
  ): string {
    const branch = options.branch ?? 'main';
    this.repos.set(fullName, {
      defaultBranch: branch,
      private: options.private ?? false,
      license: options.license === undefined ? { spdx_id: 'MIT', name: 'MIT License', key: 'mit' } : options.license,
      refs: new Map(),
      commits: new Map(),
    });
    return this.commit(fullName, branch, files);
  }

  /** A new commit on `ref` (a branch or tag name) with `changes` on top of the ref's current files; returns its SHA. */
  commit(fullName: string, ref: string, changes: Record<string, string | Buffer>): string {
    const repo = this.repos.get(fullName)!;
    const base = repo.refs.has(ref) ? repo.commits.get(repo.refs.get(ref)!)! : new Map<string, Buffer>();
    const files = new Map(base);
    for (const [p, c] of Object.entries(changes)) files.set(p, Buffer.isBuffer(c) ? c : Buffer.from(c));
    const sha = createHash('sha1').update(`${fullName}\0${ref}\0${++this.counter}`).digest('hex');
    repo.commits.set(sha, files);
    repo.refs.set(ref, sha);
    return sha;
  }

  /** The next `n` requests fail with this fault (then the server answers normally again). */
  failNext(n: number, fault: Fault): void {
    for (let i = 0; i < n; i++) this.faults.push(fault);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const auth = req.headers.authorization;
    this.requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', ...(auth ? { authorization: auth } : {}) });
    const fault = this.faults.shift();
    if (fault?.kind === 'secondary') {
      this.send(
        res,
        403,
        {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:1111:2222:3333.',
          documentation_url:
            'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
        },
        { 'retry-after': '1' },
      );
      return;
    }
    if (fault?.kind === 'primary') {
      this.send(
        res,
        403,
        {
          message:
            "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit.)",
          documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting',
        },
        {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + fault.resetInSeconds),
        },
      );
      return;
    }
    if (fault?.kind === 'status') {
      this.send(res, fault.status, { message: fault.status >= 500 ? 'Server Error' : 'Error' });
      return;
    }
    const token = auth?.replace(/^(token|bearer)\s+/i, '');
    if (this.requireToken !== undefined && auth && token !== this.requireToken) {
      this.send(res, 401, {
        message: 'Bad credentials',
        documentation_url: 'https://docs.github.com/rest',
        status: '401',
      });
      return;
    }
    const authed = this.requireToken !== undefined && token === this.requireToken;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const m = /^\/repos\/([^/]+)\/([^/]+)(?:\/(.*))?$/.exec(url.pathname);
    if (req.method !== 'GET' || !m) return this.notFound(res);
    const fullName = `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`;
    const repo = this.repos.get(fullName);
    if (!repo || (repo.private && !authed)) return this.notFound(res);
    const rest = m[3] ?? '';
    if (rest === '') {
      this.send(res, 200, {
        full_name: fullName,
        name: fullName.split('/')[1],
        owner: { login: fullName.split('/')[0] },
        private: repo.private,
        default_branch: repo.defaultBranch,
      });
      return;
    }
    let mm: RegExpExecArray | null;
    if ((mm = /^commits\/(.+)$/.exec(rest))) {
      const sha = this.resolve(repo, decodeURIComponent(mm[1]!));
      if (!sha) {
        this.send(res, 422, {
          message: `No commit found for SHA: ${decodeURIComponent(mm[1]!)}`,
          documentation_url: 'https://docs.github.com/rest/commits/commits#get-a-commit',
          status: '422',
        });
        return;
      }
      this.send(res, 200, {
        sha,
        commit: { message: 'commit', tree: { sha } },
        html_url: `https://github.com/${fullName}/commit/${sha}`,
      });
      return;
    }
    if ((mm = /^contents\/(.+)$/.exec(rest))) {
      const filePath = decodeURIComponent(mm[1]!);
      const sha = this.resolve(repo, url.searchParams.get('ref') ?? repo.defaultBranch);
      const content = sha ? repo.commits.get(sha)!.get(filePath) : undefined;
      if (!content) return this.notFound(res);
      const big = content.length > 1_000_000;
      // As api.github.com: between 1 and 100 MB only the raw and object media types are served
      // (`application/vnd.github.object+json`, octokit's `mediaType: { format: 'object' }`).
      const accept = String(req.headers.accept ?? '');
      if (big && !/application\/vnd\.github(?:\.v3)?\.(?:object|raw)/.test(accept)) {
        this.send(res, 403, {
          message:
            'This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.',
          errors: [{ resource: 'Blob', field: 'data', code: 'too_large' }],
          documentation_url: 'https://docs.github.com/rest/repos/contents#get-repository-content',
          status: '403',
        });
        return;
      }
      this.send(res, 200, {
        type: 'file',
        name: filePath.split('/').pop(),
        path: filePath,
        sha: gitBlobSha(content),
        size: content.length,
        encoding: big ? 'none' : 'base64',
        // GitHub wraps base64 at 60 characters.
        content: big ? '' : (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n',
      });
      return;
    }
    if ((mm = /^git\/blobs\/([0-9a-f]{40})$/.exec(rest))) {
      for (const files of repo.commits.values()) {
        for (const content of files.values()) {
          if (gitBlobSha(content) === mm[1]) {
            this.send(res, 200, {
              sha: mm[1],
              size: content.length,
              encoding: 'base64',
              content: content.toString('base64'),
            });
            return;
          }
        }
      }
      return this.notFound(res);
    }
    if (rest === 'license') {
      if (!repo.license) return this.notFound(res);
      this.send(res, 200, {
        name: 'LICENSE',
        path: 'LICENSE',
        license: { ...repo.license, url: `https://api.github.com/licenses/${repo.license.key}` },
      });
      return;
    }
    return this.notFound(res);
  }

  private resolve(repo: Repo, ref: string): string | undefined {
    if (repo.refs.has(ref)) return repo.refs.get(ref);
    if (/^[0-9a-f]{7,40}$/.test(ref)) return [...repo.commits.keys()].find((s) => s.startsWith(ref));
    return undefined;
  }

  private notFound(res: http.ServerResponse): void {
    this.send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.remaining = Math.max(0, this.remaining - 1);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(this.remaining),
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-used': String(5000 - this.remaining),
      'x-ratelimit-resource': 'core',
      'x-github-api-version-selected': '2022-11-28',
      ...headers,
    });
    res.end(JSON.stringify(body));
  }
}
