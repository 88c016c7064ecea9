import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputSet, formatJson, openAtomic, writeJsonAtomic } from './atomic.js';

const tmp = () => mkdtemp(path.join(os.tmpdir(), 'jb-atomic-'));

/**
 * Runs a module script through tsx in a child node and returns its exit
 * status. Asynchronous, so a slow start on a loaded machine does not block
 * the worker; the tests using it get a time limit to match.
 */
async function runScript(
  script: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    return { status: 0, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number | string; stderr?: string };
    return { status: typeof err.code === 'number' ? err.code : null, stderr: err.stderr ?? String(e) };
  }
}
const CHILD_TIMEOUT = 120_000;

describe('atomic writes', () => {
  it('makes a file visible only on commit', async () => {
    const d = await tmp();
    const f = await openAtomic(path.join(d, 'out.jsonl'));
    await f.write('{"a":1}\n');
    expect(await readdir(d)).not.toContain('out.jsonl');
    await f.commit();
    expect(await readFile(path.join(d, 'out.jsonl'), 'utf8')).toBe('{"a":1}\n');
    expect(await readdir(d)).toEqual(['out.jsonl']);
  });

  it('leaves nothing behind when a multi-file output fails', async () => {
    const d = await tmp();
    await expect(
      OutputSet.run(async (out) => {
        const a = await out.open(path.join(d, 'kept.jsonl'));
        await a.write('x\n');
        const b = await out.open(path.join(d, 'report.json'));
        await b.write('{');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await readdir(d)).toEqual([]);
  });

  it('refuses two outputs of one set at the same path (the second would replace the first), leaving nothing behind', async () => {
    const d = await tmp();
    const err = await OutputSet.run(async (out) => {
      await out.open(path.join(d, 'x.jsonl'));
      await out.open(path.join(d, '.', 'x.jsonl'));
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_USAGE', exitCode: 2, location: { file: path.join(d, '.', 'x.jsonl') } });
    expect(await readdir(d)).toEqual([]);
  });

  it(
    'removes the temporary files of a set still open when the process exits',
    async () => {
      const d = await tmp();
      const script = `import { OutputSet } from ${JSON.stringify(new URL('./atomic.ts', import.meta.url).href)};
const set = new OutputSet();
const f = await set.open(${JSON.stringify(path.join(d, 'out.jsonl'))});
await f.write('partial');
process.exit(130);`;
      const r = await runScript(script);
      expect(r.status, r.stderr).toBe(130);
      expect(await readdir(d)).toEqual([]);
    },
    CHILD_TIMEOUT,
  );

  it(
    'removes a temporary file whose opening was under way when the process exited',
    async () => {
      // The CI failure this guards: SIGTERM came while `pool import` was opening
      // its rejects file; the exit hook ran before the open finished, found no
      // file, and the open then created one that stayed.
      const d = await tmp();
      const script = `import { openAtomic, writeFileAtomic } from ${JSON.stringify(new URL('./atomic.ts', import.meta.url).href)};
const dir = ${JSON.stringify(d)};
for (let i = 0; i < 200; i++) {
  openAtomic(dir + '/s' + i + '.jsonl').catch(() => {});
  writeFileAtomic(dir + '/w' + i + '.json', 'x'.repeat(1 << 16)).catch(() => {});
}
// Exit once the outputs are being opened: some opens done, others under way.
const started = Date.now();
const wait = () => setImmediate(async () => {
  const { readdirSync } = await import('node:fs');
  if (readdirSync(dir).length > 0 || Date.now() - started > 5000) process.exit(143);
  else wait();
});
wait();`;
      for (let run = 0; run < 3; run++) {
        // The old race showed on the first run unloaded, on about one run in four on a loaded machine.
        const r = await runScript(script);
        expect(r.status, r.stderr).toBe(143);
        expect(await readdir(d), `run ${run}`).toEqual([]);
      }
    },
    CHILD_TIMEOUT,
  );

  it('an output path the file system will not take is bad usage naming it, and leaves no temporary file', async () => {
    const d = await tmp();
    await writeFile(path.join(d, 'afile'), 'x');
    await mkdir(path.join(d, 'adir'));
    await expect(writeJsonAtomic(path.join(d, 'afile', 'out.json'), {})).rejects.toMatchObject({
      code: 'E_USAGE',
      exitCode: 2,
      message: expect.stringMatching(/out\.json: a part of its path is a file, not a folder$/),
    });
    await expect(writeJsonAtomic(path.join(d, 'adir'), {})).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringMatching(/adir: it is a folder; give a file path$/),
    });
    await expect(openAtomic(path.join(d, 'adir'))).rejects.toMatchObject({ code: 'E_USAGE' });
    expect((await readdir(d)).sort()).toEqual(['adir', 'afile']);
  });

  it('writes JSON with sorted keys and a final newline', async () => {
    const d = await tmp();
    await writeJsonAtomic(path.join(d, 'x.json'), { b: 1, a: [1] });
    expect(await readFile(path.join(d, 'x.json'), 'utf8')).toBe(formatJson({ a: [1], b: 1 }));
    expect(formatJson({ b: 1, a: 2 })).toBe('{\n  "a": 2,\n  "b": 1\n}\n');
  });

  it('checks a value against its schema before writing: one that fails is a bug naming file and field, and nothing is written', async () => {
    const d = await tmp();
    const file = path.join(d, 'deprecated.json');
    const good = { instances: [{ id: 'pandas_2', deprecatedIn: '0.2.0', reason: 'withdrawn' }] };
    await writeJsonAtomic(file, good, { schema: 'deprecated' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(good);
    const bad = { instances: [{ id: 'pandas_2', reason: 'withdrawn' }] };
    const error = await writeJsonAtomic(path.join(d, 'other.json'), bad, { schema: 'deprecated' }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'E_INTERNAL', location: { file: path.join(d, 'other.json') } });
    expect((error as Error).message).toMatch(/not a valid deprecated: .*deprecatedIn/);
    expect((await readdir(d)).sort()).toEqual(['deprecated.json']);
  });
});
