// Test helper: the folder that stands for Kaggle behind the fake `kaggle`
// CLI (fake-kaggle.mjs), and the environment to run junobench against it.
import { appendFile, chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding the fake `kaggle` executable: put it first on PATH, or pass FAKE_KAGGLE_BINARY with --kaggle. */
export const FAKE_KAGGLE_BIN_DIR = path.dirname(fileURLToPath(import.meta.url));
export const FAKE_KAGGLE_BINARY = path.join(FAKE_KAGGLE_BIN_DIR, 'kaggle');

/** A Kaggle API key as the real ones look (32 hex digits). */
export const FAKE_KAGGLE_KEY = '0123456789abcdef0123456789abcdef';
export const FAKE_KAGGLE_USER = 'junotester';
/** An API token (KAGGLE_API_TOKEN or ~/.kaggle/access_token), as Kaggle's "Generate New Token" makes them now. */
export const FAKE_KAGGLE_API_TOKEN = 'KGAT_0123456789abcdef0123456789abcdef';

export interface FakeKernel {
  title?: string;
  id_no?: number;
  is_private?: boolean;
  language?: string;
  kernel_type?: string;
  dataset_sources?: string[];
  competition_sources?: string[];
  kernel_sources?: string[];
  model_sources?: string[];
  extra_metadata?: Record<string, unknown>;
}

export interface FakeDataset {
  title?: string;
  licenses?: { name: string }[];
  isPrivate?: boolean;
  extra_metadata?: Record<string, unknown>;
  /** Files by relative path. */
  files?: Record<string, string | Buffer>;
  /** Raw zip entries appended as given (e.g. `../escape.txt`). */
  zipExtra?: { name: string; content: string }[];
}

export class FakeKaggle {
  constructor(readonly server: string) {}

  static async create(server: string): Promise<FakeKaggle> {
    await mkdir(server, { recursive: true });
    await writeFile(path.join(server, 'users.json'), JSON.stringify({ [FAKE_KAGGLE_USER]: FAKE_KAGGLE_KEY }));
    await writeFile(path.join(server, 'tokens.json'), JSON.stringify({ [FAKE_KAGGLE_API_TOKEN]: FAKE_KAGGLE_USER }));
    await chmod(FAKE_KAGGLE_BINARY, 0o755);
    return new FakeKaggle(server);
  }

  /** Environment for junobench with valid credentials in KAGGLE_USERNAME/KAGGLE_KEY and the fake first on PATH. */
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      FAKE_KAGGLE_SERVER: this.server,
      KAGGLE_USERNAME: FAKE_KAGGLE_USER,
      KAGGLE_KEY: FAKE_KAGGLE_KEY,
      PATH: `${FAKE_KAGGLE_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
      JUNOBENCH_KAGGLE_BACKOFF_MS: '50',
      ...extra,
    };
  }

  async addKernel(ref: string, notebook: unknown, meta: FakeKernel = {}): Promise<void> {
    const dir = path.join(this.server, 'kernels', ...ref.split('/'));
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'kernel.json'), JSON.stringify(meta));
    await writeFile(
      path.join(dir, 'source.ipynb'),
      typeof notebook === 'string' ? notebook : JSON.stringify(notebook, null, 1),
    );
  }

  /**
   * The notebook as run, saved outputs included: what a user downloads from the kernel's page on kaggle.com.
   * `kaggle kernels pull` gives only its source (outputs and execution counts cleared).
   */
  pageNotebook(ref: string): string {
    return path.join(this.server, 'kernels', ...ref.split('/'), 'source.ipynb');
  }

  async addDataset(ref: string, d: FakeDataset): Promise<void> {
    const dir = path.join(this.server, 'datasets', ...ref.split('/'));
    await rm(dir, { recursive: true, force: true });
    await mkdir(path.join(dir, 'files'), { recursive: true });
    await writeFile(
      path.join(dir, 'dataset.json'),
      JSON.stringify({
        title: d.title,
        licenses: d.licenses ?? [],
        isPrivate: d.isPrivate ?? false,
        extra_metadata: d.extra_metadata,
      }),
    );
    for (const [rel, content] of Object.entries(d.files ?? {})) {
      const to = path.join(dir, 'files', ...rel.split('/'));
      await mkdir(path.dirname(to), { recursive: true });
      await writeFile(to, content);
    }
    if (d.zipExtra) await writeFile(path.join(dir, 'zip-extra.json'), JSON.stringify(d.zipExtra));
  }

  /** Change one file of a dataset "upstream". */
  async writeDatasetFile(ref: string, rel: string, content: string | Buffer): Promise<void> {
    await writeFile(path.join(this.server, 'datasets', ...ref.split('/'), 'files', ...rel.split('/')), content);
  }

  async addCompetition(name: string, files: Record<string, string>, rulesAccepted: boolean): Promise<void> {
    const dir = path.join(this.server, 'competitions', name);
    await mkdir(path.join(dir, 'files'), { recursive: true });
    await writeFile(path.join(dir, 'competition.json'), JSON.stringify({ title: name, rulesAccepted }));
    for (const [rel, content] of Object.entries(files)) await writeFile(path.join(dir, 'files', rel), content);
  }

  /** Make `<command> <ref>` (e.g. "kernels pull a/b") answer `status`, `times` times (default always). */
  async setFault(commandAndRef: string, status: number, times?: number): Promise<void> {
    const file = path.join(this.server, 'faults.json');
    const faults = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<string, unknown>;
    faults[commandAndRef] = { status, ...(times !== undefined ? { times } : {}) };
    await writeFile(file, JSON.stringify(faults));
    await rm(path.join(this.server, 'state'), { recursive: true, force: true });
  }

  async clearFaults(): Promise<void> {
    await rm(path.join(this.server, 'faults.json'), { force: true });
    await rm(path.join(this.server, 'state'), { recursive: true, force: true });
  }

  /** Every call the fake CLI received (arguments only). */
  async calls(): Promise<string[][]> {
    const text = await readFile(path.join(this.server, 'calls.log'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as string[]);
  }

  async clearCalls(): Promise<void> {
    await appendFile(path.join(this.server, 'calls.log'), '');
    await writeFile(path.join(this.server, 'calls.log'), '');
  }
}
