import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOutputPaths } from './output-paths.js';

describe('checkOutputPaths', () => {
  it('passes distinct new or existing files', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-outs-'));
    await writeFile(path.join(d, 'old.json'), '{}');
    await expect(
      checkOutputPaths({
        inputs: [path.join(d, 'in.jsonl')],
        outputs: [
          { path: path.join(d, 'new.jsonl'), flag: '-o' },
          { path: path.join(d, 'old.json'), flag: '--json' },
        ],
      }),
    ).resolves.toBeUndefined();
  });

  it('refuses an output that is an input, also through a link', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-outs-'));
    const input = path.join(d, 'p.jsonl');
    await writeFile(input, '');
    await symlink(input, path.join(d, 'link.jsonl'));
    for (const out of [input, path.join(d, '.', 'p.jsonl'), path.join(d, 'link.jsonl')]) {
      await expect(
        checkOutputPaths({ inputs: [input], outputs: [{ path: out, flag: '--json' }] }),
      ).rejects.toMatchObject({
        code: 'E_USAGE',
        exitCode: 2,
        message: `--json ${out} is also an input of this command (${input}): it would be replaced`,
      });
    }
  });

  it('refuses an output that is a folder, and two outputs at one path', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-outs-'));
    await mkdir(path.join(d, 'sc.json'));
    await expect(
      checkOutputPaths({ inputs: [], outputs: [{ path: path.join(d, 'sc.json'), flag: '--json' }] }),
    ).rejects.toThrow(/--json .*sc\.json is a folder; give a file path/);
    const x = path.join(d, 'x.jsonl');
    await expect(
      checkOutputPaths({
        inputs: [],
        outputs: [
          { path: x, flag: '-o' },
          { path: x, flag: '--report' },
        ],
      }),
    ).rejects.toThrow(/-o and --report name the same file/);
  });
});

describe('checkOutputPaths: folders the command reads', () => {
  it('refuses an output inside a folder it reads, also through a link, and an output folder that is one', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-outs-'));
    const instances = path.join(d, 'raw', 'instances');
    await mkdir(path.join(instances, 'pandas_1'), { recursive: true });
    await symlink(instances, path.join(d, 'view'));
    const trees = [{ path: instances, what: '--instances' }];
    for (const out of [
      path.join(instances, 'pandas_1', 'instance.json'),
      path.join(instances, 'new', 'tasks.jsonl'),
      path.join(d, 'view', 'pandas_1', 'x.json'),
    ]) {
      await expect(checkOutputPaths({ inputs: [], trees, outputs: [{ path: out, flag: '-o' }] })).rejects.toMatchObject(
        {
          code: 'E_USAGE',
          exitCode: 2,
          message: `-o ${out} is inside --instances (${instances}), which this command reads: outputs never go there`,
        },
      );
    }
    await expect(
      checkOutputPaths({ inputs: [], trees, outputs: [{ path: instances, flag: '--out', folder: true }] }),
    ).rejects.toThrow(/--out .* is inside --instances/);
    // Beside the tree, or a folder holding it, is fine: nothing is written into it.
    await expect(
      checkOutputPaths({
        inputs: [],
        trees,
        outputs: [
          { path: path.join(d, 'raw', 'tasks.jsonl'), flag: '-o' },
          { path: path.join(d, 'raw-out'), flag: '--out', folder: true },
          { path: d, flag: '--report-dir', folder: true },
        ],
      }),
    ).resolves.toBeUndefined();
  });
});
