// After a draft's run: NLTK's data the sandbox could not download, stood in for (@junobench/reproduce's
// nltk-stand-ins.ts says what each stand-in holds) so that the run goes on to its crash.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, formatJson, type Instance, type InstanceVerification } from '@junobench/core';
import { parseNotebook } from '@junobench/notebook';
import type { CommandRunner } from '@junobench/runtime';

/**
 * A run that stopped on NLTK's LookupError for a resource with a stand-in (stop words, the Punkt tokenizer): the
 * stand-in goes into the draft's data/nltk_data, a line on top of the cell that failed puts that folder first on
 * nltk.data.path (a `data` edit with why), the files are listed as synthetic data, and the draft runs again — at
 * most three times (a notebook may need stop words, then the tokenizer).
 */
export async function standInNltkData(
  staging: string,
  instance: Instance,
  verification: InstanceVerification,
  verify: (dir: string) => Promise<InstanceVerification>,
  python: { python: string; run: CommandRunner },
): Promise<{ instance: Instance; verification: InstanceVerification; changed: boolean }> {
  const { nltkStandInFor, insertShim, editCells, NLTK_DATA_DIR, NLTK_PATH_LINE, PUNKT_PICKLE_CODE } =
    await import('@junobench/reproduce');
  let changed = false;
  const done = new Set<string>();
  for (let round = 0; round < 3; round++) {
    const o = verification.reproduced.observed;
    const standIn = verification.reproduced.outcome === 'crash-mismatch' && o ? nltkStandInFor(o) : undefined;
    if (!standIn || !o || done.has(standIn.resource)) break;
    done.add(standIn.resource);
    const written: string[] = [];
    for (const f of standIn.files) {
      const rel = `${NLTK_DATA_DIR}/${f.path}`;
      const target = path.join(staging, ...rel.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      if ('text' in f) await writeFile(target, f.text);
      else {
        const r = await python.run(python.python, ['-c', PUNKT_PICKLE_CODE, target], { timeoutMs: 60_000 });
        if (r.exitCode !== 0)
          throw new JunoError(
            'E_RUNTIME',
            `could not write NLTK's Punkt stand-in with ${python.python}: ${r.stderr.trim().slice(-400)}`,
            {
              hint: 'the interpreter must import nltk (tools/setup-python.sh installs it)',
            },
          );
      }
      written.push(rel);
    }
    const file = path.join(staging, 'reproduced.ipynb');
    const nb = parseNotebook(await readFile(file, 'utf8'), 'reproduced.ipynb');
    const shim = { library: 'nltk', api: `nltk.data.path`, removedIn: '', code: NLTK_PATH_LINE };
    // Once per notebook (the line holds no character JSON escapes).
    const hasLine = JSON.stringify(nb).includes(NLTK_PATH_LINE);
    const next = hasLine ? nb : editCells(nb, (ci, src) => (ci === o.cell ? insertShim(src, shim) : src));
    if (!hasLine) await writeFile(file, `${JSON.stringify(next, null, 1)}\n`);
    const synthetic = instance.data?.synthetic;
    instance = {
      ...instance,
      data: {
        ...(instance.data ?? {}),
        synthetic: {
          ...(synthetic ?? {}),
          reason: synthetic?.reason
            ? `${synthetic.reason}; NLTK's data could not be downloaded (no network): stand-ins`
            : "NLTK's data could not be downloaded (no network): stand-ins",
          files: [...(synthetic?.files ?? []), ...written],
          derived: [...(synthetic?.derived ?? []), ...written.map((w) => `${w}: ${standIn.what}`)],
        },
      },
      reproduction: {
        ...(instance.reproduction ?? {}),
        edits: [
          ...(instance.reproduction?.edits ?? []),
          {
            kind: 'data' as const,
            cell: o.cell,
            from: `nltk '${standIn.resource}'`,
            to: `${NLTK_DATA_DIR} (a stand-in)`,
            why: `NLTK's '${standIn.resource}' is downloaded with nltk.download, which the sandbox cannot (LookupError in code cell ${o.cell}): a stand-in — ${standIn.what} — in ${NLTK_DATA_DIR}, put first on nltk.data.path by a line on top of the cell`,
          },
        ],
      },
    };
    await writeFile(path.join(staging, 'instance.json'), formatJson(instance));
    changed = true;
    verification = await verify(staging);
  }
  return { instance, verification, changed };
}
