import { JunoError } from '@junobench/core';

/** A Kaggle kernel, dataset or competition, as `kaggle` takes it on its command line. */
export interface KaggleRef {
  owner: string;
  slug: string;
}

/** A notebook file in a GitHub repository at a ref (branch, tag or commit SHA). */
export interface GithubNotebookRef {
  owner: string;
  repo: string;
  /** `/`-separated path of the .ipynb file in the repository. */
  path: string;
  /** The ref as given; undefined = the repository's default branch. */
  ref?: string;
  /**
   * Blob URLs are ambiguous when a branch name contains `/`
   * (`blob/feature/x/nb.ipynb`): every split of the segments after `blob/`
   * into ref and path, shortest ref first. The collector tries them in order.
   */
  candidates: { ref: string; path: string }[];
}

// Kaggle's own rules: user names are letters, digits and "-"; slugs
// lowercase letters, digits and "-". Accept a little more (case, "_", ".")
// but never a separator, "..", or something a shell or path could misread.
const KAGGLE_PART = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const GITHUB_OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const GITHUB_REPO = /^[A-Za-z0-9._-]{1,100}$/;
// git check-ref-format, restricted to printable ASCII without shell or URL metacharacters.
const GIT_REF = /^(?!\/)(?!.*\/\/)(?!.*\.\.)(?!.*@\{)(?!.*\/$)(?!.*\.lock(\/|$))(?!-)[A-Za-z0-9._/+-]{1,250}$/;

function badRef(kind: string, value: string, hint: string, reason?: string): JunoError {
  return new JunoError('E_USAGE', `"${value}" is not a valid ${kind}${reason ? `: ${reason}` : ''}`, { hint });
}

function checkKaggle(kind: string, owner: string, slug: string, given: string, example: string): KaggleRef {
  if (!KAGGLE_PART.test(owner) || !KAGGLE_PART.test(slug) || owner.includes('..') || slug.includes('..')) {
    throw badRef(kind, given, `write it as <owner>/<slug>, e.g. ${example}`);
  }
  return { owner, slug };
}

/**
 * `owner/kernel-slug`, or a kernel's page URL (https://www.kaggle.com/code/owner/slug
 * or the older /owner/slug form).
 */
export function parseKaggleKernelRef(value: string): KaggleRef {
  const given = value.trim();
  const url = /^https?:\/\/(?:www\.)?kaggle\.com\/(?:code\/)?([^/?#]+)\/([^/?#]+)\/?(?:[?#].*)?$/.exec(given);
  const parts = url ? [url[1]!, url[2]!] : given.split('/');
  if (parts.length !== 2)
    throw badRef('Kaggle kernel ref', given, 'write it as <owner>/<kernel-slug>, e.g. alexisbcook/titanic-tutorial');
  const ref = checkKaggle('Kaggle kernel ref', parts[0]!, parts[1]!, given, 'alexisbcook/titanic-tutorial');
  // The real CLI refuses slugs shorter than five characters too ("Kernel slug must be at least five characters").
  if (ref.slug.length < 5) throw badRef('Kaggle kernel ref', given, 'kernel slugs have at least five characters');
  return ref;
}

/** `owner/dataset-slug` (optionally with `/versions/<n>`, which is dropped: the lock checks content, not numbers). */
export function parseKaggleDatasetRef(value: string): KaggleRef {
  const given = value.trim();
  const parts = given.replace(/\/versions\/\d+$/, '').split('/');
  if (parts.length !== 2)
    throw badRef('Kaggle dataset ref', given, 'write it as <owner>/<dataset-slug>, e.g. uciml/iris');
  return checkKaggle('Kaggle dataset ref', parts[0]!, parts[1]!, given, 'uciml/iris');
}

/** A competition slug such as `titanic`. */
export function parseKaggleCompetitionRef(value: string): string {
  const given = value.trim();
  if (!KAGGLE_PART.test(given) || given.includes('..'))
    throw badRef('Kaggle competition name', given, 'give the competition slug, e.g. titanic');
  return given;
}

function checkGithub(owner: string, repo: string, filePath: string, ref: string | undefined, given: string): void {
  const hint =
    'write it as https://github.com/<owner>/<repo>/blob/<ref>/<path>.ipynb or <owner>/<repo>:<path>.ipynb@<ref>';
  if (!GITHUB_OWNER.test(owner) || !GITHUB_REPO.test(repo) || repo === '.' || repo === '..')
    throw badRef('GitHub notebook ref', given, hint);
  const segments = filePath.split('/');
  if (
    filePath.length === 0 ||
    filePath.length > 1024 ||
    segments.some((s) => s === '' || s === '.' || s === '..') ||
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
    /[\u0000-\u001f\\]/.test(filePath)
  ) {
    throw badRef('GitHub notebook ref', given, hint, 'the path must be relative, without ".."');
  }
  if (!filePath.endsWith('.ipynb'))
    throw badRef('GitHub notebook ref', given, hint, 'the file must be a .ipynb notebook');
  if (ref !== undefined && !GIT_REF.test(ref))
    throw badRef('GitHub notebook ref', given, hint, 'the ref must be a branch, tag or commit SHA');
}

/**
 * `https://github.com/<o>/<r>/blob/<ref>/<path>.ipynb` or `<o>/<r>:<path>@<ref>`
 * (`@<ref>` optional: the default branch). Everything is checked against
 * patterns before it reaches a URL: refs come from users and web pages.
 */
export function parseGithubNotebookRef(value: string): GithubNotebookRef {
  const given = value.trim();
  const blob = /^https?:\/\/(?:www\.)?github\.com\/([^/]+)\/([^/]+)\/(?:blob|raw)\/(.+?)(?:[?#].*)?$/.exec(given);
  if (blob) {
    const [, owner, repo, rest] = blob as unknown as [string, string, string, string];
    const segments = decodeSegments(rest, given);
    const candidates: { ref: string; path: string }[] = [];
    for (let i = 1; i < segments.length; i++) {
      const ref = segments.slice(0, i).join('/');
      const p = segments.slice(i).join('/');
      if (GIT_REF.test(ref) && p.endsWith('.ipynb')) candidates.push({ ref, path: p });
    }
    if (candidates.length === 0) {
      throw badRef(
        'GitHub notebook ref',
        given,
        'a blob URL names a ref and a .ipynb path: https://github.com/<owner>/<repo>/blob/<ref>/<path>.ipynb',
      );
    }
    for (const c of candidates) checkGithub(owner, repo, c.path, c.ref, given);
    return { owner, repo, path: candidates[0]!.path, ref: candidates[0]!.ref, candidates };
  }
  const short = /^([^/:@\s]+)\/([^/:@\s]+):([^@]+?)(?:@([^@\s]+))?$/.exec(given);
  if (!short) {
    throw badRef(
      'GitHub notebook ref',
      given,
      'write it as https://github.com/<owner>/<repo>/blob/<ref>/<path>.ipynb or <owner>/<repo>:<path>.ipynb@<ref>',
    );
  }
  const [, owner, repo, filePath, ref] = short as unknown as [string, string, string, string, string | undefined];
  checkGithub(owner, repo, filePath, ref, given);
  return { owner, repo, path: filePath, ...(ref ? { ref } : {}), candidates: ref ? [{ ref, path: filePath }] : [] };
}

function decodeSegments(rest: string, given: string): string[] {
  try {
    return rest.split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw badRef('GitHub notebook ref', given, 'the URL has a broken %-escape');
  }
}

/** The canonical short form, `owner/repo:path@ref`. */
export function formatGithubRef(r: { owner: string; repo: string; path: string; ref?: string }): string {
  return `${r.owner}/${r.repo}:${r.path}${r.ref ? `@${r.ref}` : ''}`;
}

/** A folder-name-safe form of a path inside a repository (`nb/Analysis v2.ipynb` → `nb--Analysis-v2`). */
export function slugifyPath(p: string): string {
  return (
    p
      .replace(/\.ipynb$/, '')
      .split('/')
      .map((s) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, ''))
      .filter(Boolean)
      .join('--')
      .slice(0, 120) || 'notebook'
  );
}
