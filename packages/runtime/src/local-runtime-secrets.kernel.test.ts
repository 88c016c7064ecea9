// The local runtime is no sandbox, but the credentials the toolchain holds in
// its environment (GITHUB_TOKEN, KAGGLE_KEY…) are not handed to notebook code:
// neither to a forked kernel nor to a launched one, nor to their children.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalRuntime } from './local-runtime.js';
import type { Runtime } from './runtime.js';

const SECRETS = {
  GITHUB_TOKEN: 'ghp_junobenchtestsecret1',
  KAGGLE_KEY: 'kagglejunobenchtestsecret2',
  KAGGLE_USERNAME: 'junobench-test-user',
  AWS_SECRET_ACCESS_KEY: 'awsjunobenchtestsecret3',
  QUEUE_URL: 'redis://:junobenchtestsecret4@127.0.0.1:6379',
};

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-local-secrets-'));
  const cells = [
    // The kernel's own environment, and what a child process of it sees.
    // Looked up by the planted values: the CI's own JUNOBENCH_* variables must not count.
    `import os, subprocess\nsecrets = ${JSON.stringify(Object.values(SECRETS))}\nseen = {k: v for k, v in os.environ.items() if any(x in v for x in secrets)}\nchild = subprocess.run(['env'], capture_output=True, text=True).stdout\nseen.update({'child': l for l in child.splitlines() if any(x in l for x in secrets)})`,
    "raise RuntimeError('seen=' + repr(sorted(seen)) + ' marker=' + os.environ.get('JUNOBENCH_TEST_MARKER', 'missing'))",
  ];
  const nb = {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: {},
    cells: cells.map((source) => ({ cell_type: 'code', metadata: {}, source, execution_count: null, outputs: [] })),
  };
  await writeFile(path.join(dir, 'env.ipynb'), JSON.stringify(nb));
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([
  ['forked from a zygote', true],
  ['started as a new interpreter', false],
])("local runtime, kernels %s, with secrets in the caller's environment", (_name, fork) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createLocalRuntime({ fork, env: { ...process.env, ...SECRETS, JUNOBENCH_TEST_MARKER: 'kept' } });
  }, 120_000);
  afterAll(async () => {
    await rt?.close();
  });

  it('runs the notebook without them, and with the rest of the environment', async () => {
    const [r] = await rt.run([
      {
        id: 'env',
        instanceDir: dir,
        notebook: 'env.ipynb',
        cells: [0, 1],
        cellTimeoutSeconds: 120,
        timeoutSeconds: 300,
      },
    ]);
    const evalue = r!.cells.find((c) => c.status === 'error')?.evalue ?? `no error: ${r!.status} ${r!.reason ?? ''}`;
    expect(evalue).toBe('seen=[] marker=kept');
  }, 600_000);
});
