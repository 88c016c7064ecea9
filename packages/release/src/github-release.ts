import { readFile } from 'node:fs/promises';
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { JunoError } from '@junobench/core';

// The plugins add behaviour (waiting out rate limits, retrying server errors), no API: the client is typed as Octokit.
const ReleaseOctokit = Octokit.plugin(throttling, retry) as unknown as typeof Octokit;
export type GitHubClient = Octokit;

export interface GitHubClientOptions {
  /** GITHUB_TOKEN; never printed. */
  token?: string;
  /** GITHUB_API_URL (default https://api.github.com). */
  baseUrl?: string;
  /** Retries of a failed request (server errors, rate limits); default 3. */
  retries?: number;
}

/** Octokit with the throttling and retry plugins, on GITHUB_API_URL. */
export function createGitHubClient(o: GitHubClientOptions = {}): GitHubClient {
  const retries = o.retries ?? 3;
  return new ReleaseOctokit({
    ...(o.token ? { auth: o.token } : {}),
    baseUrl: (o.baseUrl ?? 'https://api.github.com').replace(/\/+$/, ''),
    userAgent: 'junobench-release',
    throttle: {
      onRateLimit: (_after: number, _options: unknown, _octokit: unknown, count: number) => count < retries,
      onSecondaryRateLimit: (_after: number, _options: unknown, _octokit: unknown, count: number) => count < retries,
    },
    retry: { retries },
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
}

export interface ReleaseAsset {
  name: string;
  /** The file to upload. */
  path: string;
  bytes: number;
  contentType: string;
}

export interface GitHubReleaseRequest {
  owner: string;
  repo: string;
  tag: string;
  name: string;
  body: string;
  prerelease: boolean;
  assets: readonly ReleaseAsset[];
  onStep?: (message: string) => void;
}

export interface GitHubReleaseResult {
  id: number;
  url: string;
  created: boolean;
  uploaded: string[];
  skipped: string[];
  replaced: string[];
}

/**
 * The GitHub release for a tag, with its assets uploaded to the API's upload
 * URL. Resumable: an existing release for the tag is reused; an asset already
 * there with the same size is skipped, one with another size (an interrupted
 * upload) is deleted and uploaded again.
 */
export async function publishGitHubRelease(
  octokit: GitHubClient,
  req: GitHubReleaseRequest,
): Promise<GitHubReleaseResult> {
  const { owner, repo } = req;
  const step = req.onStep ?? (() => undefined);
  let release: { id: number; html_url: string; upload_url: string };
  let created = false;
  try {
    release = (await octokit.rest.repos.getReleaseByTag({ owner, repo, tag: req.tag })).data;
    step(`GitHub release for ${req.tag} exists (id ${release.id}): reusing it`);
  } catch (e) {
    if (status(e) !== 404) throw githubError(e, `reading the release for ${req.tag}`, req);
    try {
      release = (
        await octokit.rest.repos.createRelease({
          owner,
          repo,
          tag_name: req.tag,
          name: req.name,
          body: req.body,
          draft: false,
          prerelease: req.prerelease,
        })
      ).data;
    } catch (e2) {
      throw githubError(e2, `creating the release for ${req.tag}`, req);
    }
    created = true;
    step(`GitHub release for ${req.tag} created (id ${release.id})`);
  }
  let existing: { id: number; name: string; size: number }[];
  try {
    existing = await octokit.paginate(octokit.rest.repos.listReleaseAssets, {
      owner,
      repo,
      release_id: release.id,
      per_page: 100,
    });
  } catch (e) {
    throw githubError(e, `listing the assets of release ${release.id}`, req);
  }
  const result: GitHubReleaseResult = {
    id: release.id,
    url: release.html_url,
    created,
    uploaded: [],
    skipped: [],
    replaced: [],
  };
  for (const asset of req.assets) {
    const there = existing.find((a) => a.name === asset.name);
    if (there && there.size === asset.bytes) {
      result.skipped.push(asset.name);
      step(`${asset.name}: already uploaded (${asset.bytes} bytes)`);
      continue;
    }
    if (there) {
      try {
        await octokit.rest.repos.deleteReleaseAsset({ owner, repo, asset_id: there.id });
      } catch (e) {
        throw githubError(e, `deleting the incomplete asset ${asset.name}`, req);
      }
      result.replaced.push(asset.name);
    }
    const data = await readFile(asset.path);
    try {
      await octokit.rest.repos.uploadReleaseAsset({
        owner,
        repo,
        release_id: release.id,
        name: asset.name,
        // The upload URL the API gave (a URI template); octokit expands name and label.
        url: release.upload_url,
        data: data as unknown as string,
        headers: { 'content-type': asset.contentType, 'content-length': data.length },
      });
    } catch (e) {
      throw githubError(e, `uploading ${asset.name}`, req);
    }
    result.uploaded.push(asset.name);
    step(`${asset.name}: uploaded (${asset.bytes} bytes)`);
  }
  return result;
}

function status(e: unknown): number | undefined {
  const s = (e as { status?: unknown })?.status;
  return typeof s === 'number' ? s : undefined;
}

function githubError(e: unknown, what: string, req: { owner: string; repo: string }): JunoError {
  const s = status(e);
  const msg = String((e as Error)?.message ?? e).split('\n')[0];
  const hint =
    s === 401
      ? 'GITHUB_TOKEN is missing or invalid: set it to a token that may write releases of the repository'
      : s === 403
        ? 'the token may not write releases of this repository (it needs the "contents: write" permission)'
        : s === 404
          ? `check --github ${req.owner}/${req.repo} and that the tag is pushed (--remote)`
          : 'run publish again: it reuses the release and skips assets already uploaded';
  return new JunoError(
    'E_GITHUB',
    `GitHub API failed while ${what} in ${req.owner}/${req.repo}${s ? ` (HTTP ${s})` : ''}: ${msg}`,
    { hint, cause: e },
  );
}
