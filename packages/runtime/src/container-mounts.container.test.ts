// The instance folder reaches the container as a read-only mount (of a
// staged view, so /proc/self/mountinfo names neither its host path nor the
// toolchain's PID) whatever its host path holds: a colon or a comma in a user's folder name broke the
// `host:container:ro` string the engine parses (Podman: "incorrect volume
// format"), so such an instance could not run in the sandbox at all.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCodeNotebook } from '../test-helpers/code-notebook.js';
import { useSandboxSuite } from '../test-helpers/sandbox-runtime.js';

const sandbox = useSandboxSuite('mounts');

describe('container runtime: the instance mount', () => {
  it.each([
    ['a colon', 'runs:2026'],
    ['a colon and an engine option', 'x:/etc:rw'],
    ['a space and a quote', "my runs 'a'"],
  ])(
    'runs an instance whose folder path holds %s, with the instance still read-only',
    async (_what, folder) => {
      const cells = [
        "import os\ntry:\n    open('/instance/pwn', 'w')\n    wrote = 'wrote'\nexcept OSError as e:\n    wrote = type(e).__name__ + str(e.errno)",
        // What the container shows of the mount's source names neither the host folder nor the toolchain's process.
        `mi = open('/proc/self/mountinfo').read()\nleaks = [x for x in (${JSON.stringify(sandbox.tmp)}, ${JSON.stringify(`-${process.pid}-`)}) if x in mi]`,
        "raise RuntimeError(open('data/x.csv').read().splitlines()[1] + ' ' + wrote + ' ' + str(sorted(os.listdir('/instance'))) + ' ' + str(leaks))",
      ];
      const dir = await writeCodeNotebook(path.join(sandbox.tmp, folder, 'inst'), cells, {
        'data/x.csv': 'a,b\n1,2\n',
      });
      const [r] = await sandbox.runtime().run([
        {
          id: `mounts-${folder}`,
          instanceDir: dir,
          notebook: 'notebook.ipynb',
          cells: [0, 1, 2],
          cellTimeoutSeconds: 120,
          timeoutSeconds: 300,
        },
      ]);
      expect(r!.reason).toBeUndefined();
      expect(r!.status).toBe('error');
      // errno 30: EROFS.
      expect(r!.cells[2]!.evalue).toBe("1,2 OSError30 ['data', 'notebook.ipynb'] []");
    },
    600_000,
  );

  it('fresh containers refuse a folder path with a comma before any container starts (Podman cannot mount it), naming the folder; slot containers, which copy the instance, run it', async () => {
    const dir = path.join(sandbox.tmp, 'a,b', 'inst');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'notebook.ipynb'),
      JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [] }),
    );
    const [slot] = await sandbox.runtime().run([
      {
        id: 'mounts-comma-slot',
        instanceDir: dir,
        notebook: 'notebook.ipynb',
        cells: [],
        cellTimeoutSeconds: 60,
        timeoutSeconds: 60,
      },
    ]);
    expect(slot!.status, JSON.stringify(slot)).toBe('completed');
    await expect(
      sandbox.runtime({ fork: false }).run([
        {
          id: 'mounts-comma',
          instanceDir: dir,
          notebook: 'notebook.ipynb',
          cells: [],
          cellTimeoutSeconds: 60,
          timeoutSeconds: 60,
        },
      ]),
    ).rejects.toMatchObject({
      code: 'E_USAGE',
      exitCode: 2,
      message: expect.stringContaining(`${dir} has a comma in its path`),
    });
  }, 600_000);
});
