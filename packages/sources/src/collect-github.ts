import path from 'node:path';
import { JunoError, formatJson, sha256, type ProgressListener, type SourceRecord } from '@junobench/core';
import { parseNotebook } from '@junobench/notebook';
import { pseudonymizeAuthor } from './author-id.js';
import { gitBlobSha, githubError, type GithubClient } from './github-client.js';
import { formatGithubRef, parseGithubNotebookRef, slugifyPath, type GithubNotebookRef } from './parse-source-ref.js';
import { writeSourceRecord } from './write-source-record.js';

/** The GitHub API's largest blob (100 MB); larger files are not served by it. */
const MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024;

export interface FetchedGithubNotebook {
  owner: string;
  repo: string;
  path: string;
  /** The ref as asked for (a branch, tag or SHA; the default branch when none was given). */
  requestedRef: string;
  commit: string;
  blobSha: string;
  content: Buffer;
  /** SPDX id of the repository's licence at that commit, or NOASSERTION. */
  license: string;
  licenseName?: string;
}

/**
 * Resolve the ref to a commit SHA, fetch the notebook at that commit (files
 * over 1 MB, which the contents endpoint does not inline, through the git
 * blob endpoint) and check its bytes against git's blob id, and read the
 * repository's licence at that commit.
 */
export async function fetchGithubNotebook(
  client: GithubClient,
  ref: GithubNotebookRef,
  env: NodeJS.ProcessEnv,
): Promise<FetchedGithubNotebook> {
  const given = formatGithubRef(ref);
  const { owner, repo } = ref;
  let candidates = ref.candidates;
  if (candidates.length === 0) {
    const info = await client.rest.repos.get({ owner, repo }).catch((e: unknown) => {
      throw githubError(e, `repository ${owner}/${repo}`, env);
    });
    candidates = [{ ref: info.data.default_branch, path: ref.path }];
  }
  let resolved: { ref: string; path: string; commit: string } | undefined;
  let lastError: unknown;
  for (const c of candidates) {
    try {
      const r = await client.rest.repos.getCommit({ owner, repo, ref: c.ref, per_page: 1 });
      if (!/^[0-9a-f]{40}$/.test(r.data.sha))
        throw new JunoError('E_SOURCE', `GitHub returned a malformed commit id for ${given}`);
      resolved = { ...c, commit: r.data.sha };
      break;
    } catch (e) {
      lastError = e;
      const status = (e as { status?: number }).status;
      if (status !== 404 && status !== 422) throw githubError(e, given, env);
    }
  }
  if (!resolved)
    throw githubError(lastError, `ref "${candidates.map((c) => c.ref).join('" / "')}" of ${owner}/${repo}`, env);

  const subject = `${owner}/${repo}:${resolved.path}@${resolved.ref}`;
  // The object media type: with the default one GitHub refuses a file over 1 MB (403 "This API returns blobs up to 1
  // MB", code too_large) — notebooks with saved plots often are; with this one it answers the metadata with `content`
  // "" and `encoding` "none", and the blob endpoint below serves the bytes (up to 100 MB).
  const got = await client.rest.repos
    .getContent({ owner, repo, path: resolved.path, ref: resolved.commit, mediaType: { format: 'object' } })
    .catch((e: unknown) => {
      throw githubError(e, subject, env);
    });
  const entry = got.data as unknown;
  // (With the object media type a folder is `{ "type": "dir", "entries": […] }`, not an array.)
  if (Array.isArray(entry) || (entry as { type?: string }).type !== 'file') {
    throw new JunoError(
      'E_USAGE',
      `${subject} is not a file (a ${Array.isArray(entry) ? 'folder' : String((entry as { type?: string }).type)})`,
      {
        hint: 'give the path of a .ipynb file in the repository',
      },
    );
  }
  const file = entry as { sha: string; size: number; content?: string; encoding?: string };
  if (!/^[0-9a-f]{40}$/.test(file.sha) || !Number.isInteger(file.size) || file.size < 0) {
    throw new JunoError('E_SOURCE', `GitHub returned malformed file metadata for ${subject}`);
  }
  if (file.size > MAX_NOTEBOOK_BYTES) {
    throw new JunoError(
      'E_USAGE',
      `${subject} is ${(file.size / 1e6).toFixed(0)} MB: larger than the GitHub API serves (100 MB)`,
    );
  }
  let content: Buffer;
  if (file.encoding === 'base64' && typeof file.content === 'string' && (file.content.length > 0 || file.size === 0)) {
    content = Buffer.from(file.content, 'base64');
  } else {
    // Over 1 MB the contents endpoint leaves `content` empty ("encoding": "none"): the blob endpoint serves up to 100
    // MB.
    const blob = await client.rest.git.getBlob({ owner, repo, file_sha: file.sha }).catch((e: unknown) => {
      throw githubError(e, `${subject} (blob ${file.sha})`, env);
    });
    if (blob.data.encoding !== 'base64')
      throw new JunoError(
        'E_SOURCE',
        `GitHub returned blob ${file.sha} in an unexpected encoding (${blob.data.encoding})`,
      );
    content = Buffer.from(blob.data.content, 'base64');
  }
  if (gitBlobSha(content) !== file.sha) {
    throw new JunoError('E_SOURCE', `the bytes received for ${subject} do not match their git blob id ${file.sha}`, {
      hint: 'the download was damaged or altered in transit; run the command again',
    });
  }

  let license = 'NOASSERTION';
  let licenseName: string | undefined;
  try {
    const lic = await client.request('GET /repos/{owner}/{repo}/license', { owner, repo, ref: resolved.commit });
    const spdx = (lic.data as { license?: { spdx_id?: string | null; name?: string } }).license;
    if (spdx?.spdx_id && /^[A-Za-z0-9.+-]{1,64}$/.test(spdx.spdx_id)) license = spdx.spdx_id;
    if (spdx?.name) licenseName = String(spdx.name).slice(0, 200);
  } catch (e) {
    // No licence file is an answer (NOASSERTION), not a failure.
    if ((e as { status?: number }).status !== 404) throw githubError(e, `the licence of ${owner}/${repo}`, env);
  }
  return {
    owner,
    repo,
    path: resolved.path,
    requestedRef: resolved.ref,
    commit: resolved.commit,
    blobSha: file.sha,
    content,
    license,
    ...(licenseName ? { licenseName } : {}),
  };
}

/** The web page of a file at a commit. */
export function githubBlobUrl(owner: string, repo: string, commit: string, filePath: string): string {
  return `https://github.com/${owner}/${repo}/blob/${commit}/${filePath.split('/').map(encodeURIComponent).join('/')}`;
}

/** Pure: the source record of a fetched GitHub notebook. */
export function planGithubSourceRecord(
  f: FetchedGithubNotebook,
  salt: string,
): { record: SourceRecord; notebookFile: string; metadata: object } {
  const notebookFile =
    path.posix
      .basename(f.path)
      .replace(/[^A-Za-z0-9._() -]+/g, '_')
      .replace(/^[.-]+/, '') || 'notebook.ipynb';
  const warnings = [
    "GitHub notebooks come without their datasets: put the data the notebook reads under the instance's data/ (or use synthetic data) before verifying",
  ];
  if (f.license === 'NOASSERTION')
    warnings.unshift(
      `the repository ${f.owner}/${f.repo} declares no licence (NOASSERTION): check that its notebook may be redistributed`,
    );
  const record: SourceRecord = {
    platform: 'github',
    ref: formatGithubRef({ owner: f.owner, repo: f.repo, path: f.path, ref: f.requestedRef }),
    url: githubBlobUrl(f.owner, f.repo, f.commit, f.path),
    version: { commit: f.commit, requestedRef: f.requestedRef, blobSha: f.blobSha },
    codeLicense: f.license,
    codeLicenseBasis:
      f.license === 'NOASSERTION'
        ? 'no licence file found in the repository at this commit'
        : "the repository's licence file at this commit",
    notebook: { path: notebookFile, bytes: f.content.byteLength, sha256: sha256(f.content) },
    metadataFile: 'github-metadata.json',
    authorId: pseudonymizeAuthor('github', f.owner, salt),
    datasets: [],
    warnings,
  };
  const metadata = {
    repository: `${f.owner}/${f.repo}`,
    path: f.path,
    requestedRef: f.requestedRef,
    commit: f.commit,
    blobSha: f.blobSha,
    size: f.content.byteLength,
    license: { spdx_id: f.license, ...(f.licenseName ? { name: f.licenseName } : {}) },
  };
  return { record, notebookFile, metadata };
}

/** Where a GitHub notebook's record goes: `<out>/github/<owner>/<repo>--<path>`. */
export function githubRecordDir(outDir: string, f: { owner: string; repo: string; path: string }): string {
  return path.join(outDir, 'github', f.owner, `${f.repo}--${slugifyPath(f.path)}`);
}

export interface CollectGithubOptions {
  client: GithubClient;
  env: NodeJS.ProcessEnv;
  /** raw/sources */
  outDir: string;
  salt: string;
  onProgress?: ProgressListener;
}

export interface CollectedSource {
  ref: string;
  dir: string;
  record: SourceRecord;
}

/**
 * `junobench collect github`: each ref fetched and checked, then written as
 * `<out>/github/<owner>/<repo>--<path>/` (the notebook as fetched,
 * github-metadata.json, source.json). Every ref is parsed before anything is
 * fetched, so a typo in the fifth ref fails before the first is written.
 */
export async function collectGithubNotebooks(
  refs: readonly string[],
  options: CollectGithubOptions,
): Promise<CollectedSource[]> {
  const parsed = refs.map((r) => parseGithubNotebookRef(r));
  const out: CollectedSource[] = [];
  for (const [i, ref] of parsed.entries()) {
    options.onProgress?.({ task: 'collect github', done: i, total: parsed.length, item: formatGithubRef(ref) });
    const fetched = await fetchGithubNotebook(options.client, ref, options.env);
    // A file named .ipynb that is not a notebook is refused before anything is written.
    // Kept as fetched; cells without the ids nbformat 4.5 requires are given them when the draft is made (add).
    const notebook = parseNotebook(
      fetched.content.toString('utf8'),
      `${formatGithubRef(ref)} (${fetched.path} at ${fetched.commit.slice(0, 12)})`,
      { repairIds: { repaired: 0 } },
    );
    // As collect kaggle does for a kernel in another language: its draft could only fail in a Python kernel.
    const meta = notebook.metadata as { kernelspec?: { language?: unknown }; language_info?: { name?: unknown } };
    const language = [meta.kernelspec?.language, meta.language_info?.name].find(
      (l): l is string => typeof l === 'string' && l.trim() !== '' && l.trim().toLowerCase() !== 'python',
    );
    if (language !== undefined) {
      throw new JunoError(
        'E_USAGE',
        `${formatGithubRef(ref)} is a notebook in ${language.trim()}, not Python (its kernel language): only Python notebooks can become JunoBench instances`,
        {
          location: { field: 'metadata.kernelspec.language' },
        },
      );
    }
    const { record, notebookFile, metadata } = planGithubSourceRecord(fetched, options.salt);
    const dir = githubRecordDir(options.outDir, fetched);
    await writeSourceRecord(dir, record, [
      { path: notebookFile, content: fetched.content },
      { path: record.metadataFile, content: formatJson(metadata) },
    ]);
    out.push({ ref: refs[i]!, dir, record });
  }
  options.onProgress?.({ task: 'collect github', done: parsed.length, total: parsed.length });
  return out;
}
