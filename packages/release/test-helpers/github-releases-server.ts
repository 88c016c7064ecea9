// A local stand-in for the GitHub REST API's release endpoints (those
// `junobench release publish` uses), on 127.0.0.1, owned by the tests: octokit
// talks to it through GITHUB_API_URL. It answers as api.github.com does:
//   GET    /repos/{o}/{r}/releases/tags/{tag}           the release for a tag, 404 without one
//   POST   /repos/{o}/{r}/releases                      create (422 when the tag already has one)
//   GET    /repos/{o}/{r}/releases/{id}/assets          list (paginated: per_page, page, Link header)
//   DELETE /repos/{o}/{r}/releases/assets/{asset_id}    delete an asset
//   POST   {upload_url}?name=&label=                    upload an asset's bytes (a separate "uploads"
//                                                       host in GitHub: here a path prefix of the same
//                                                       server, as the release's upload_url says);
//                                                       422 already_exists for a taken name
// "Bad credentials" (401) when a token is required and missing or wrong, and
// on demand a fault for the next requests (a status, or a connection cut
// after part of an upload's body was stored, as an interrupted upload leaves it).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAsset {
  id: number;
  name: string;
  label: string | null;
  size: number;
  content_type: string;
  state: 'uploaded';
  browser_download_url: string;
  data: Buffer;
}

export interface FakeRelease {
  id: number;
  tag_name: string;
  name: string;
  body: string;
  draft: boolean;
  prerelease: boolean;
  html_url: string;
  upload_url: string;
  assets: FakeAsset[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization?: string;
  contentType?: string;
  contentLength?: string;
}

type Fault =
  { match: RegExp; kind: 'status'; status: number } | { match: RegExp; kind: 'cut-upload'; keepBytes: number };

export class GithubReleasesServer {
  readonly requests: RecordedRequest[] = [];
  readonly releases = new Map<string, FakeRelease[]>();
  private readonly faults: Fault[] = [];
  private server: http.Server | undefined;
  private nextId = 1;
  /** When set, requests must carry `authorization: token <it>` (or bearer); others get 401. */
  requireToken: string | undefined;

  get url(): string {
    const a = this.server?.address() as AddressInfo | undefined;
    if (!a) throw new Error('the fake GitHub server is not started');
    return `http://127.0.0.1:${a.port}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          this.handle(req, res, Buffer.concat(chunks));
        } catch (e) {
          this.json(res, 500, { message: String((e as Error).message) });
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next request whose "METHOD path" matches fails this way (once). */
  failNext(match: RegExp, fault: { status: number } | { cutUploadAfter: number }): void {
    this.faults.push(
      'status' in fault
        ? { match, kind: 'status', status: fault.status }
        : { match, kind: 'cut-upload', keepBytes: fault.cutUploadAfter },
    );
  }

  /** A release made outside the tool (e.g. an earlier, interrupted run). */
  seedRelease(owner: string, repo: string, tag: string, assets: { name: string; data: Buffer }[] = []): FakeRelease {
    const rel = this.newRelease(owner, repo, { tag_name: tag, name: tag, body: '' });
    for (const a of assets) this.addAsset(owner, repo, rel, a.name, null, 'application/octet-stream', a.data);
    return rel;
  }

  release(owner: string, repo: string, tag: string): FakeRelease | undefined {
    return (this.releases.get(`${owner}/${repo}`) ?? []).find((r) => r.tag_name === tag);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    const u = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const auth = req.headers.authorization;
    this.requests.push({
      method,
      path: `${u.pathname}${u.search}`,
      ...(auth ? { authorization: auth } : {}),
      ...(req.headers['content-type'] ? { contentType: String(req.headers['content-type']) } : {}),
      ...(req.headers['content-length'] ? { contentLength: String(req.headers['content-length']) } : {}),
    });
    if (this.requireToken !== undefined) {
      const token = auth?.replace(/^(token|bearer)\s+/i, '');
      if (token !== this.requireToken)
        return this.json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    }
    const faultIndex = this.faults.findIndex((f) => f.match.test(`${method} ${u.pathname}`));
    const fault = faultIndex >= 0 ? this.faults.splice(faultIndex, 1)[0] : undefined;
    if (fault?.kind === 'status') return this.json(res, fault.status, { message: `fault injected (${fault.status})` });

    let m: RegExpExecArray | null;
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/releases\/tags\/(.+)$/.exec(u.pathname)) && method === 'GET') {
      const rel = this.release(m[1]!, m[2]!, decodeURIComponent(m[3]!));
      return rel ? this.json(res, 200, this.view(rel)) : this.json(res, 404, { message: 'Not Found' });
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/releases$/.exec(u.pathname)) && method === 'POST') {
      const input = JSON.parse(body.toString('utf8') || '{}') as {
        tag_name?: string;
        name?: string;
        body?: string;
        draft?: boolean;
        prerelease?: boolean;
      };
      if (!input.tag_name)
        return this.json(res, 422, {
          message: 'Validation Failed',
          errors: [{ resource: 'Release', code: 'missing_field', field: 'tag_name' }],
        });
      if (this.release(m[1]!, m[2]!, input.tag_name)) {
        return this.json(res, 422, {
          message: 'Validation Failed',
          errors: [{ resource: 'Release', code: 'already_exists', field: 'tag_name' }],
        });
      }
      return this.json(res, 201, this.view(this.newRelease(m[1]!, m[2]!, input)));
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/releases\/(\d+)\/assets$/.exec(u.pathname)) && method === 'GET') {
      const rel = this.byId(m[1]!, m[2]!, Number(m[3]));
      if (!rel) return this.json(res, 404, { message: 'Not Found' });
      const perPage = Math.min(100, Number(u.searchParams.get('per_page') ?? 30));
      const page = Number(u.searchParams.get('page') ?? 1);
      const slice = rel.assets.slice((page - 1) * perPage, page * perPage);
      if (page * perPage < rel.assets.length) {
        res.setHeader('link', `<${this.url}${u.pathname}?per_page=${perPage}&page=${page + 1}>; rel="next"`);
      }
      return this.json(
        res,
        200,
        slice.map((a) => this.assetView(a)),
      );
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/releases\/assets\/(\d+)$/.exec(u.pathname)) && method === 'DELETE') {
      for (const rel of this.releases.get(`${m[1]}/${m[2]}`) ?? []) {
        const i = rel.assets.findIndex((a) => a.id === Number(m![3]));
        if (i >= 0) {
          rel.assets.splice(i, 1);
          res.writeHead(204).end();
          return;
        }
      }
      return this.json(res, 404, { message: 'Not Found' });
    }
    if ((m = /^\/uploads\/repos\/([^/]+)\/([^/]+)\/releases\/(\d+)\/assets$/.exec(u.pathname)) && method === 'POST') {
      const rel = this.byId(m[1]!, m[2]!, Number(m[3]));
      if (!rel) return this.json(res, 404, { message: 'Not Found' });
      const name = u.searchParams.get('name');
      const type = req.headers['content-type'];
      if (!name)
        return this.json(res, 422, {
          message: 'Validation Failed',
          errors: [{ resource: 'ReleaseAsset', code: 'missing_field', field: 'name' }],
        });
      if (!type) return this.json(res, 422, { message: 'Validation Failed: content-type is required' });
      if (rel.assets.some((a) => a.name === name)) {
        return this.json(res, 422, {
          message: 'Validation Failed',
          errors: [{ resource: 'ReleaseAsset', code: 'already_exists', field: 'name' }],
        });
      }
      if (fault?.kind === 'cut-upload') {
        // What an interrupted upload leaves behind: a shorter asset under the name.
        this.addAsset(
          m[1]!,
          m[2]!,
          rel,
          name,
          u.searchParams.get('label'),
          String(type),
          body.subarray(0, fault.keepBytes),
        );
        req.socket.destroy();
        return;
      }
      return this.json(
        res,
        201,
        this.assetView(this.addAsset(m[1]!, m[2]!, rel, name, u.searchParams.get('label'), String(type), body)),
      );
    }
    return this.json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  }

  private newRelease(
    owner: string,
    repo: string,
    input: { tag_name?: string; name?: string; body?: string; draft?: boolean; prerelease?: boolean },
  ): FakeRelease {
    const id = this.nextId++;
    const rel: FakeRelease = {
      id,
      tag_name: input.tag_name!,
      name: input.name ?? input.tag_name!,
      body: input.body ?? '',
      draft: Boolean(input.draft),
      prerelease: Boolean(input.prerelease),
      html_url: `https://github.com/${owner}/${repo}/releases/tag/${input.tag_name}`,
      upload_url: `${this.url}/uploads/repos/${owner}/${repo}/releases/${id}/assets{?name,label}`,
      assets: [],
    };
    const key = `${owner}/${repo}`;
    this.releases.set(key, [...(this.releases.get(key) ?? []), rel]);
    return rel;
  }

  private addAsset(
    owner: string,
    repo: string,
    rel: FakeRelease,
    name: string,
    label: string | null,
    contentType: string,
    data: Buffer,
  ): FakeAsset {
    const asset: FakeAsset = {
      id: this.nextId++,
      name,
      label,
      size: data.length,
      content_type: contentType,
      state: 'uploaded',
      browser_download_url: `https://github.com/${owner}/${repo}/releases/download/${rel.tag_name}/${name}`,
      data,
    };
    rel.assets.push(asset);
    return asset;
  }

  private byId(owner: string, repo: string, id: number): FakeRelease | undefined {
    return (this.releases.get(`${owner}/${repo}`) ?? []).find((r) => r.id === id);
  }

  private view(r: FakeRelease) {
    const { assets, ...rest } = r;
    return { ...rest, assets: assets.map((a) => this.assetView(a)) };
  }

  private assetView(a: FakeAsset) {
    const { data: _data, ...rest } = a;
    return rest;
  }

  private json(res: http.ServerResponse, status: number, value: unknown): void {
    const text = JSON.stringify(value);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-limit': '5000',
    });
    res.end(text);
  }
}
