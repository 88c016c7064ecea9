// The Kaggle CLI adapter's pure parts; the adapter itself is tested against
// the fake CLI in test/sources-kaggle-cli.test.ts.
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import {
  classifyKaggleFailure,
  failureLine,
  findKaggleBinary,
  lastOutputLine,
  redactKnownSecrets,
} from './kaggle-cli.js';

let tmp: string;
let binary: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-kaggle-find-'));
  await writeFile(path.join(tmp, 'kaggle'), '#!/bin/sh\necho "Kaggle API 1.7.4.5"\n');
  await chmod(path.join(tmp, 'kaggle'), 0o755);
  binary = path.join(tmp, 'kaggle');
});

async function caught(p: Promise<unknown>): Promise<JunoError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof JunoError) return e;
    throw e;
  }
  throw new Error('expected a JunoError');
}

describe('classifyKaggleFailure', () => {
  it.each([
    ['You must authenticate before you can call the Kaggle API.', 'auth'],
    [
      "OSError: Could not find kaggle.json. Make sure it's located in /root/.kaggle. Or use the environment method.",
      'auth',
    ],
    ['401 Client Error: Unauthorized for url: https://api.kaggle.com/v1/kernels.KernelsApiService/GetKernel', 'auth'],
    ['403 Client Error: Forbidden for url: https://api.kaggle.com/v1/x', 'forbidden'],
    ['(403)\nReason: Forbidden\nHTTP response headers: HTTPHeaderDict()', 'forbidden'],
    ['404 Client Error: Not Found for url: https://api.kaggle.com/v1/x', 'not-found'],
    ['429 Client Error: Too Many Requests for url: https://api.kaggle.com/v1/x', 'rate-limit'],
    ['500 Server Error: Internal Server Error for url: https://api.kaggle.com/v1/x', 'other'],
  ])('%s → %s', (output, kind) => expect(classifyKaggleFailure(output)).toBe(kind));

  it('quotes the line that shows the failure, else the last meaningful one', () => {
    expect(
      failureLine('You must authenticate before you can call the Kaggle API.\nFollow the instructions', 'auth'),
    ).toMatch(/^You must authenticate/);
  });

  it('takes the last meaningful line, skipping progress bars', () => {
    expect(lastOutputLine('Downloading x.zip\n100%|██████████| 1.00M/1.00M [00:00<00:00]\n\n')).toBe(
      'Downloading x.zip',
    );
  });

  it('redacts the key from the environment and token shapes', () => {
    const env = { KAGGLE_KEY: 'not-hex-but-secret', GITHUB_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123' };
    expect(redactKnownSecrets('key=not-hex-but-secret token ghp_abcdefghijklmnopqrstuvwxyz0123', env)).not.toMatch(
      /not-hex-but-secret|ghp_abc/,
    );
  });
});

describe('findKaggleBinary', () => {
  it('takes --kaggle, then $JUNOBENCH_KAGGLE, then PATH', async () => {
    expect(await findKaggleBinary({ explicit: binary, env: {} })).toBe(binary);
    expect(await findKaggleBinary({ env: { JUNOBENCH_KAGGLE: binary } })).toBe(binary);
    expect(await findKaggleBinary({ env: { PATH: `/nonexistent:${tmp}` } })).toBe(binary);
  });

  it('exits 3 with how to install it when there is none', async () => {
    const e = await caught(findKaggleBinary({ env: { PATH: '/nonexistent' } }));
    expect(e.exitCode).toBe(3);
    expect(e.message).toMatch(/Kaggle CLI \(`kaggle`\) was not found on PATH/);
    expect(e.hint).toMatch(/pip install kaggle/);
    expect(e.hint).toMatch(/kaggle\.json/);
    const notExec = path.join(tmp, 'kaggle-not-exec');
    await writeFile(notExec, '#!/bin/sh\n');
    await chmod(notExec, 0o644);
    expect((await caught(findKaggleBinary({ explicit: notExec, env: {} }))).message).toMatch(
      /does not exist or is not executable/,
    );
  });
});
