import { execa } from 'execa';
import { JunoError } from '@junobench/core';

/** Runs a command and returns stdout; injected so tests can fake it. */
export type CommandRunner = (
  file: string,
  args: readonly string[],
  options?: { timeoutMs?: number; env?: NodeJS.ProcessEnv },
) => Promise<{ stdout: string; exitCode: number; stderr: string }>;

export const execaRunner: CommandRunner = async (file, args, options = {}) => {
  const r = await execa(file, [...args], {
    reject: false,
    timeout: options.timeoutMs,
    env: options.env,
    extendEnv: true,
    stdin: 'ignore',
  });
  return {
    stdout: String(r.stdout ?? ''),
    stderr: String(r.stderr ?? ''),
    exitCode: r.exitCode ?? (r.timedOut ? 124 : 1),
  };
};

/**
 * Candidate interpreters, best first. Debian's python3 comes first because
 * that is where `tools/setup-python.sh` installs the kernel stack; a `python3`
 * earlier on PATH (pyenv, conda) often lacks ipykernel.
 */
export const PYTHON_CANDIDATES = ['/usr/bin/python3', 'python3', 'python'] as const;

// find_spec rather than import: importing ipykernel takes about a second.
const CHECK = [
  'import sys, importlib.util as u',
  'print(sys.executable)',
  "sys.exit(0 if u.find_spec('ipykernel') and u.find_spec('jupyter_client') else 1)",
].join('\n');

/**
 * The interpreter that runs kernels: `explicit` (flag), else $JUNOBENCH_PYTHON,
 * else the first candidate that can import ipykernel and jupyter_client.
 */
export async function findPython(
  options: { explicit?: string; env?: NodeJS.ProcessEnv; run?: CommandRunner } = {},
): Promise<string> {
  const run = options.run ?? execaRunner;
  const env = options.env ?? process.env;
  const chosen = options.explicit ?? env.JUNOBENCH_PYTHON;
  if (chosen) {
    const r = await run(chosen, ['-c', CHECK], { timeoutMs: 30_000 }).catch((e: unknown) => ({
      exitCode: 127,
      stdout: '',
      stderr: String(e),
    }));
    if (r.exitCode !== 0) {
      throw new JunoError(
        'E_ENV_PYTHON',
        `the Python interpreter "${chosen}" cannot import ipykernel and jupyter_client`,
        {
          hint: `install them for that interpreter (Debian: \`sh tools/setup-python.sh\`; elsewhere: \`${chosen} -m pip install ipykernel jupyter_client\`), or choose another with --python / JUNOBENCH_PYTHON`,
        },
      );
    }
    return r.stdout.trim().split('\n').pop() || chosen;
  }
  for (const candidate of PYTHON_CANDIDATES) {
    const r = await run(candidate, ['-c', CHECK], { timeoutMs: 30_000 }).catch(() => undefined);
    if (r && r.exitCode === 0) return r.stdout.trim().split('\n').pop() || candidate;
  }
  throw new JunoError(
    'E_ENV_PYTHON',
    `no Python interpreter with ipykernel and jupyter_client found (tried ${PYTHON_CANDIDATES.join(', ')})`,
    {
      hint: "on Debian run `sh tools/setup-python.sh` (as root); elsewhere install ipykernel and the instances' libraries, then pass --python <interpreter> or set JUNOBENCH_PYTHON",
    },
  );
}
