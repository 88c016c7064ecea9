import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { JunoError } from './errors.js';

/** An output a command is asked to write, and the flag that named it (for the message). */
export interface OutputPath {
  path: string;
  flag: string;
}

/**
 * Refuse, before any work, outputs that would destroy something or fail at
 * the very end: an output that is one of the command's inputs (it would be
 * replaced by the output — a scorecard written over the predictions), one
 * that is an existing folder (the rename at the end fails after all the
 * work), and two outputs at the same path (one would silently replace the
 * other). Links are followed, so `out.jsonl -> in.jsonl` counts as the input.
 */
export async function checkOutputPaths(o: {
  inputs: readonly string[];
  outputs: readonly OutputPath[];
}): Promise<void> {
  const real = async (p: string) => realpath(p).catch(() => path.resolve(p));
  const inputs = new Map<string, string>();
  for (const i of o.inputs) inputs.set(await real(i), i);
  const seen = new Map<string, OutputPath>();
  for (const out of o.outputs) {
    const st = await stat(out.path).catch(() => undefined);
    if (st?.isDirectory()) {
      throw new JunoError('E_USAGE', `${out.flag} ${out.path} is a folder; give a file path`, {
        location: { file: out.path },
      });
    }
    const key = await real(out.path);
    const input = inputs.get(key);
    if (input !== undefined) {
      throw new JunoError(
        'E_USAGE',
        `${out.flag} ${out.path} is also an input of this command (${input}): it would be replaced`,
        {
          location: { file: out.path },
          hint: 'write the output to another file',
        },
      );
    }
    const twin = seen.get(key);
    if (twin) {
      throw new JunoError(
        'E_USAGE',
        `${twin.flag} and ${out.flag} name the same file (${out.path}): one output would replace the other`,
        {
          location: { file: out.path },
          hint: 'give each output its own path',
        },
      );
    }
    seen.set(key, out);
  }
}
