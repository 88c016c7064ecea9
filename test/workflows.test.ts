// The GitHub Actions workflow is valid: action-validator (from npm) passes on every file of .github/workflows, as
// `npm run lint:workflows` runs it; and the job runs what CI runs here.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './run-cli.js';

describe('.github/workflows', () => {
  it('passes action-validator, and its job runs .ci/run and the quick start', async () => {
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(process.execPath, [path.join(repoRoot, 'tools/check-workflows.mjs')], { cwd: repoRoot }, (e, o, er) =>
        resolve({ code: e ? Number(e.code) || 1 : 0, out: `${o}${er}` }),
      ),
    );
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('ok  .github/workflows/ci.yml');
    const ci = await readFile(path.join(repoRoot, '.github/workflows/ci.yml'), 'utf8');
    expect(ci).toContain('run: sh .ci/run');
    expect(ci).toContain('npx junobench build');
    expect(ci).toContain('node-version: 20');
  });

  it('a workflow with a misspelt key fails the check, naming the file', async () => {
    const { mkdtemp, mkdir, writeFile, rm } = await import('node:fs/promises');
    const os = await import('node:os');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-workflows-'));
    try {
      await mkdir(path.join(dir, '.github/workflows'), { recursive: true });
      await writeFile(
        path.join(dir, '.github/workflows/bad.yml'),
        'name: x\non: [push]\njobs:\n  a:\n    runs-onn: x\n',
      );
      const r = await new Promise<{ code: number; out: string }>((resolve) =>
        execFile(process.execPath, [path.join(repoRoot, 'tools/check-workflows.mjs')], { cwd: dir }, (e, o, er) =>
          resolve({ code: e ? Number(e.code) || 1 : 0, out: `${o}${er}` }),
        ),
      );
      expect(r.code).toBe(1);
      expect(r.out).toContain('FAIL .github/workflows/bad.yml');
      expect(r.out).toContain("Additional property 'runs-onn' is not allowed");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
