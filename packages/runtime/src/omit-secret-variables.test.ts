import { describe, expect, it } from 'vitest';
import { omitSecretVariables } from './omit-secret-variables.js';

describe('omitSecretVariables', () => {
  it.each([
    ['GITHUB_TOKEN', 'ghp_x'],
    ['GH_TOKEN', 'x'],
    ['KAGGLE_KEY', 'x'],
    ['KAGGLE_USERNAME', 'bob'],
    ['KAGGLE_API_TOKEN', 'x'],
    ['KAGGLE_CONFIG_DIR', '/root/.kaggle'],
    ['AWS_SECRET_ACCESS_KEY', 'x'],
    ['AWS_ACCESS_KEY_ID', 'x'],
    ['AWS_SESSION_TOKEN', 'x'],
    ['OPENAI_API_KEY', 'x'],
    ['HF_TOKEN', 'x'],
    ['PGPASSWORD', 'x'],
    ['SSH_AUTH_SOCK', '/tmp/ssh-agent'],
    ['GOOGLE_APPLICATION_CREDENTIALS', '/k.json'],
    ['CLIENT_SECRET', 'x'],
    ['HUGGING_FACE_HUB_TOKEN', 'x'],
    ['TOKEN', 'x'],
    ['REDIS_URL', 'redis://:s3cret@10.0.0.5:6379'],
    ['HTTPS_PROXY', 'http://user:pw@proxy:3128'],
  ])('omits %s', (name, value) => {
    const { env, omitted } = omitSecretVariables({ PATH: '/usr/bin', [name]: value });
    expect(env).toEqual({ PATH: '/usr/bin' });
    expect(omitted).toEqual([name]);
  });

  it.each([
    ['PATH', '/usr/bin:/bin'],
    ['HOME', '/root'],
    ['LANG', 'C.UTF-8'],
    ['PYTHONHASHSEED', '0'],
    ['OMP_NUM_THREADS', '1'],
    ['HTTPS_PROXY', 'http://proxy:3128'],
    ['MONKEY', 'banana'],
    ['KEYBOARD', 'us'],
    ['TOKENIZERS_PARALLELISM', 'false'],
    ['SECRETARY', 'x'],
    ['TOX_TESTENV_PASSENV', 'X'],
    ['JUPYTER_PATH', '/usr/share/jupyter'],
  ])('keeps %s', (name, value) => {
    const { env, omitted } = omitSecretVariables({ [name]: value });
    expect(env).toEqual({ [name]: value });
    expect(omitted).toEqual([]);
  });

  it('does not change its argument', () => {
    const input = { GITHUB_TOKEN: 'x', PATH: '/bin' };
    omitSecretVariables(input);
    expect(input).toEqual({ GITHUB_TOKEN: 'x', PATH: '/bin' });
  });
});
