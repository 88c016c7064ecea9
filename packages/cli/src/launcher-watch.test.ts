import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseProcStat, planWatchedAncestors, readProcStat, type ProcStat } from './launcher-watch.js';

const stat = (pid: number, ppid: number, sid: number): ProcStat => ({ pid, ppid, sid, start: `${pid}0`, comm: 'x' });

describe('parseProcStat', () => {
  it('reads pid, ppid, session and start time, whatever the command name holds', () => {
    const line = '4242 (npm exec (x) y) S 4000 4100 3900 34816 4100 4194560 1 0 0 0 5 1 0 0 20 0 11 0 987654 1 2 3';
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4000, sid: 3900, start: '987654', comm: 'npm exec (x) y' });
    expect(parseProcStat('garbage')).toBeUndefined();
  });

  it('reads this process', () => {
    expect(readProcStat('self')).toMatchObject({ pid: process.pid, ppid: process.ppid });
  });
});

describe('planWatchedAncestors', () => {
  // A terminal: login shell 100 (session leader) → npx 200 → sh 300 → worker 400.
  const tree = new Map([100, 200, 300].map((p) => [p, stat(p, p === 100 ? 1 : p - 100, 100)]));
  it.each<[string, ProcStat, number[]]>([
    ['npx → sh → worker in a terminal: npx and sh, not the shell', stat(400, 300, 100), [300, 200]],
    ['started by the terminal shell itself (nohup … &): nothing', stat(400, 100, 100), []],
    ['a session of its own (setsid): nothing', stat(400, 300, 400), []],
  ])('%s', (_n, self, pids) => {
    expect(planWatchedAncestors(self, (p) => tree.get(p)).map((p) => p.pid)).toEqual(pids);
  });
});

describe('watchLauncher', () => {
  it('a process whose launcher is SIGTERMed notices and says which one ended', async () => {
    // sh stays (a command follows), so the node process's parent is sh: killing sh alone orphans it.
    const script = `import { watchLauncher } from ${JSON.stringify(new URL('./launcher-watch.ts', import.meta.url).href)};
watchLauncher((p) => { process.stdout.write('gone ' + p.comm + '\\n'); process.exit(0); }, { intervalMs: 100 });
process.stdout.write('watching\\n');
setTimeout(() => process.exit(3), 60000);`;
    const sh = spawn('sh', ['-c', `"${process.execPath}" --import tsx --input-type=module -e "$SCRIPT"; true`], {
      env: { ...process.env, SCRIPT: script },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const ended = new Promise<void>((resolve) => sh.stdout.on('end', resolve));
    sh.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('watching') && sh.exitCode === null && sh.signalCode === null) sh.kill('SIGTERM');
    });
    await ended;
    expect(out).toBe('watching\ngone sh\n');
  }, 60_000);
});
