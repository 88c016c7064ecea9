/** Query or fragment parameters that carry credentials in URLs people paste (OAuth, API keys, signed URLs). */
const TOKEN_PARAMETERS = new Set(
  [
    'access_token',
    'id_token',
    'refresh_token',
    'token',
    'auth',
    'auth_token',
    'authorization',
    'bearer',
    'api_key',
    'apikey',
    'api-key',
    'key',
    'secret',
    'client_secret',
    'password',
    'passwd',
    'pwd',
    'sig',
    'signature',
    'x-amz-signature',
    'x-amz-credential',
    'x-amz-security-token',
    'x-goog-signature',
    'x-goog-credential',
    'private_token',
    'session',
    'sessionid',
  ].map((p) => p.toLowerCase()),
);

export interface StrippedUrl {
  url: string;
  /** What was removed, for a warning (never the values): `user-info`, `access_token parameter`, … */
  removed: string[];
}

/**
 * A URL without the credentials people leave in them when they copy one
 * (`https://user:token@host/…`, `?access_token=…`, signed-URL signatures):
 * user-info and known token parameters (query and fragment) are dropped, the
 * rest is kept as written. Text that is not an absolute URL is returned as is.
 */
export function stripUrlCredentials(text: string): StrippedUrl {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return { url: text, removed: [] };
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { url: text, removed: [] };
  const removed: string[] = [];
  if (u.username || u.password) {
    removed.push('user-info');
    u.username = '';
    u.password = '';
  }
  const strip = (params: URLSearchParams, where: string): boolean => {
    let changed = false;
    for (const name of [...new Set(params.keys())]) {
      if (TOKEN_PARAMETERS.has(name.toLowerCase())) {
        params.delete(name);
        removed.push(`${name} ${where}`);
        changed = true;
      }
    }
    return changed;
  };
  if (u.search && strip(u.searchParams, 'parameter')) {
    // URLSearchParams re-encodes what it keeps; an empty query goes away.
    if ([...u.searchParams.keys()].length === 0) u.search = '';
  }
  if (u.hash.includes('=')) {
    const frag = new URLSearchParams(u.hash.slice(1));
    if (strip(frag, 'fragment parameter')) u.hash = frag.toString();
  }
  return removed.length > 0 ? { url: u.toString(), removed } : { url: text, removed: [] };
}
