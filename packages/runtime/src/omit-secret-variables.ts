/**
 * Names of variables that hold credentials by convention: the toolchain's own
 * (KAGGLE_KEY, KAGGLE_API_TOKEN, GITHUB_TOKEN), cloud and API keys
 * (AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY…), passwords, and the SSH agent's
 * socket (which lets its holder sign with the user's keys). TOKEN and SECRET
 * count as whole words only: TOKENIZERS_PARALLELISM is a setting, not a secret.
 */
const SECRET_NAME =
  /((^|_)(TOKEN|SECRET|CREDENTIALS?)(_|$)|PASSWORD|PASSWD|PASSPHRASE|(^|_)KEY$|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH_SOCK|^KAGGLE_(USERNAME|KEY|API_TOKEN|CONFIG_DIR)$)/i;
/** A URL with a password in it (`redis://:pw@host`, `https://user:pw@proxy`). */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s@]*:[^/\s@]+@/i;

/**
 * The environment for notebook code in the local runtime: the caller's, less
 * every variable that holds a credential by its name or carries a URL with a
 * password. The toolchain keeps such secrets in its own environment
 * (docs/sources.md, "Credentials": "they stay in the CLI's environment"); a
 * notebook is someone else's code and must not be handed them. Pure: returns
 * a new object, sorted by nothing in particular, never mutates `env`.
 */
export function omitSecretVariables(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; omitted: string[] } {
  const kept: NodeJS.ProcessEnv = {};
  const omitted: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (SECRET_NAME.test(name) || URL_WITH_PASSWORD.test(value)) omitted.push(name);
    else kept[name] = value;
  }
  return { env: kept, omitted: omitted.sort() };
}
