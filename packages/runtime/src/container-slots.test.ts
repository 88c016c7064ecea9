import { describe, expect, it } from 'vitest';
import { planCreateOptions } from './container-exec.js';
import type { ContainerRunSettings } from './container-sandbox.js';
import { KERNEL_SECCOMP_FILE, SlotPool, planNestOptions, planSlotContainer } from './container-slots.js';
import type { RunSession } from './run-session.js';
import type { NotebookRun } from './runtime.js';

const settings: ContainerRunSettings = {
  image: 'junobench/benchmark:t',
  memoryBytes: 2 * 1024 ** 3,
  diskBytes: 512 * 1024 ** 2,
  nanoCpus: 1e9,
  pidsLimit: 512,
  threads: 1,
  python: 'python3',
  runnerPath: '/opt/junobench/junobench_runner.py',
  user: 'junobench',
  startupTimeoutSeconds: 60,
  wallClockSeconds: () => 100,
  labels: { 'org.junobench.runtime.session': 's1' },
  seccompNesting: '/tmp/p/seccomp-nesting.json',
  engine: 'podman',
};

describe('slot containers', () => {
  const spec = planSlotContainer(settings, 1, '/tmp/run/box/runner-abc', '/tmp/run/box', 200_123, true);

  it('run the runner as a uid of their own, with no capability, no network and the nesting profile', () => {
    expect(spec.user).toBe('200123:200123');
    expect(spec.capDrop).toEqual(['ALL']);
    expect(spec.capAdd).toBeUndefined();
    expect(spec.seccomp).toBe('/tmp/p/seccomp-nesting.json');
    expect(spec.securityOpt).toEqual(['unmask=/proc/*']);
    expect(
      planSlotContainer({ ...settings, engine: 'docker' }, 1, '/tmp/run/box/r', '/tmp/run/box', 1, true).securityOpt,
    ).toEqual(['systempaths=unconfined']);
    const create = planCreateOptions(spec);
    expect(create.NetworkDisabled).toBe(true);
    expect(create.HostConfig?.NetworkMode).toBe('none');
    expect(create.HostConfig?.ReadonlyRootfs).toBe(true);
    expect(create.HostConfig?.SecurityOpt).toEqual([
      'no-new-privileges',
      'seccomp=/tmp/p/seccomp-nesting.json',
      'unmask=/proc/*',
    ]);
  });

  it('see the run folder read-only and nothing else of the host; their writable places are in memory and sized', () => {
    expect(spec.mounts).toEqual([{ source: '/tmp/run/box', target: '/run/junobench', readOnly: true }]);
    expect(spec.tmpfs).toEqual({
      '/tmp': 512 * 1024 ** 2,
      '/var/tmp': 512 * 1024 ** 2,
      '/run/junobench/runner-abc': 64 * 1024 ** 2,
      '/work': 1024 ** 2,
      '/instance': 1024 ** 2,
    });
    expect(spec.memoryBytes).toBe(2 * 1024 ** 3);
    expect(spec.pidsLimit).toBe(512);
    expect(spec.env).toContain('HOME=/tmp/home');
  });

  it('start the runner as `serve` with each kernel nested: the run folder hidden, /work and /instance its own', () => {
    const at = spec.cmd.indexOf('--nest-json');
    expect(spec.cmd.slice(0, 3)).toEqual(['python3', '/opt/junobench/junobench_runner.py', 'serve']);
    expect(spec.cmd).toContain('--authenticate');
    expect(spec.cmd[spec.cmd.indexOf('--tmp') + 1]).toBe('/run/junobench/runner-abc');
    expect(JSON.parse(spec.cmd[at + 1]!)).toEqual({
      hide: ['/run/junobench'],
      workdir: '/work',
      instance: '/instance',
      home: '/tmp/home',
      home_from: '/home/junobench',
      disk: 512 * 1024 ** 2,
      seccomp: `/run/junobench/${KERNEL_SECCOMP_FILE}`,
    });
    expect(planNestOptions(settings, false)).not.toHaveProperty('seccomp');
  });
});

describe('the slot pool', () => {
  /** Slots that record the runs they were given and finish them when the test says so. */
  function fakeSlots() {
    const slots: { runs: string[]; pending: (() => void)[] }[] = [];
    const newSession = () => {
      const slot = { runs: [] as string[], pending: [] as (() => void)[] };
      slots.push(slot);
      return {
        runners: 1,
        done: Promise.resolve(),
        end: () => undefined,
        cancel: () => undefined,
        add(run: NotebookRun) {
          slot.runs.push(run.id);
          return new Promise((resolve) =>
            slot.pending.push(() => resolve({ id: run.id, outcome: 'ok', cells: [] } as never)),
          );
        },
      } as unknown as RunSession;
    };
    return { slots, newSession };
  }
  const run = (id: string, prewarm: string[]): NotebookRun => ({
    id,
    instanceDir: `/i/${id}`,
    notebook: 'n.ipynb',
    cells: [0],
    cellTimeoutSeconds: 10,
    timeoutSeconds: 10,
    prewarm,
  });
  const finishFirst = async (slot: { pending: (() => void)[] }) => {
    slot.pending.shift()!();
    await new Promise((r) => setImmediate(r));
  };

  it("keeps a set of modules in the slot that imported it: an instance's fixed notebook follows its reproduced one", async () => {
    const { slots, newSession } = fakeSlots();
    const pool = new SlotPool(2, newSession);
    const sets = [['pandas'], ['torch'], ['sklearn'], ['seaborn']];
    for (const [i, set] of sets.entries()) {
      void pool.submit(run(`r${i}`, set));
      void pool.submit(run(`f${i}`, set));
    }
    // Two in flight per slot: the first two instances, each in a slot of its own.
    expect(slots.map((s) => s.runs)).toEqual([
      ['r0', 'f0'],
      ['r1', 'f1'],
    ]);
    // The second slot frees first and takes the next instance; its fixed notebook waits for the same slot rather
    // than going to the first one to import the same modules again.
    await finishFirst(slots[1]!);
    await finishFirst(slots[0]!);
    expect(slots.map((s) => s.runs)).toEqual([
      ['r0', 'f0', 'r3'],
      ['r1', 'f1', 'r2'],
    ]);
    await finishFirst(slots[0]!);
    await finishFirst(slots[1]!);
    expect(slots.map((s) => s.runs)).toEqual([
      ['r0', 'f0', 'r3', 'f3'],
      ['r1', 'f1', 'r2', 'f2'],
    ]);
  });

  it('passes over a waiting run only so often: a stream of runs of the imported sets does not hold it back', async () => {
    const { slots, newSession } = fakeSlots();
    const pool = new SlotPool(2, newSession);
    for (let i = 1; i <= 4; i++) void pool.submit(run(`a${i}`, ['pandas']));
    void pool.submit(run('late', ['sklearn']));
    for (let i = 5; i <= 12; i++) void pool.submit(run(`a${i}`, ['pandas']));
    // Both slots imported pandas.
    expect(slots.map((s) => s.runs)).toEqual([
      ['a1', 'a2'],
      ['a3', 'a4'],
    ]);
    const before: string[] = [];
    for (let i = 0; i < 8 && !slots.some((s) => s.runs.includes('late')); i++) {
      await finishFirst(slots[i % 2]!);
      before.push(...slots.flatMap((s) => s.runs).filter((id) => !['a1', 'a2', 'a3', 'a4', 'late'].includes(id)));
    }
    expect(slots.flatMap((s) => s.runs)).toContain('late');
    // Four later runs went before it, then it went next.
    expect(new Set(before)).toEqual(new Set(['a5', 'a6', 'a7', 'a8']));
  });

  it('never leaves a slot idle while a run waits, even when only another slot imported its set', async () => {
    const { slots, newSession } = fakeSlots();
    const pool = new SlotPool(2, newSession);
    const results = ['a', 'b', 'c', 'd'].map((id) => pool.submit(run(id, ['pandas'])));
    expect(slots.map((s) => s.runs)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    for (const s of slots) while (s.pending.length > 0) await finishFirst(s);
    expect((await Promise.all(results)).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
  });
});
