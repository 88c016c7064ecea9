import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { JunoError } from './errors.js';

/** An output a command is asked to write, and the flag that named it (for the message). */
export interface OutputPath {
  path: string;
  flag: string;
  /** A folder the command writes into (`--out <dir>`), rather than a file. */
  folder?: boolean;
}

/** A folder a command reads (an instances tree, an annotations folder, a release), and what names it. */
export interface InputTree {
  path: string;
  /** How the message names it: `--instances`, `--raw`, `the release`. */
  what: string;
}

/**
 * Refuse, before any work, outputs that would destroy something or fail at
 * the very end: an output that is one of the command's inputs (it would be
 * replaced by the output — a scorecard written over the predictions), one
 * inside a folder the command reads (`tasks export -o raw/instances/x/instance.json`
 * replaced an instance's record: outputs never go into the instances or
 * annotations tree), one that is an existing folder (the rename at the end
 * fails after all the work), and two outputs at the same path (one would
 * silently replace the other). Links are followed, so `out.jsonl -> in.jsonl`
 * counts as the input.
 */
export async function checkOutputPaths(o: {
  inputs: readonly string[];
  outputs: readonly OutputPath[];
  trees?: readonly InputTree[];
}): Promise<void> {
  const inputs = new Map<string, string>();
  for (const i of o.inputs) inputs.set(await realish(i), i);
  const trees: (InputTree & { real: string })[] = [];
  for (const t of o.trees ?? []) trees.push({ ...t, real: await realish(t.path) });
  const seen = new Map<string, OutputPath>();
  for (const out of o.outputs) {
    const st = await stat(out.path).catch(() => undefined);
    if (st?.isDirectory() && !out.folder) {
      throw new JunoError('E_USAGE', `${out.flag} ${out.path} is a folder; give a file path`, {
        location: { file: out.path },
      });
    }
    const key = await realish(out.path);
    const tree = trees.find((t) => key === t.real || key.startsWith(t.real + path.sep));
    if (tree) {
      throw new JunoError(
        'E_USAGE',
        `${out.flag} ${out.path} is inside ${tree.what} (${tree.path}), which this command reads: outputs never go there`,
        {
          location: { file: out.path },
          hint: `write the output outside ${tree.path}`,
        },
      );
    }
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

/**
 * The path with every link of its existing part resolved: a file not written yet under a linked folder is
 * compared where it would really be.
 */
async function realish(p: string): Promise<string> {
  const abs = path.resolve(p);
  let head = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(head), ...tail);
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return abs;
      tail.unshift(path.basename(head));
      head = parent;
    }
  }
}
