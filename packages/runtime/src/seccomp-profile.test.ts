import { describe, expect, it } from 'vitest';
import {
  formatSeccompProfile,
  planSeccompProfile,
  planValueBlocks,
  type SeccompArg,
  type SeccompRule,
} from './seccomp-profile.js';

const profile = planSeccompProfile();
const rulesFor = (name: string): SeccompRule[] => profile.syscalls.filter((r) => r.names.includes(name));
const CLONE_NEWUSER = 0x10000000;
const NAMESPACES = 0x7e020000;

describe('the sandbox seccomp profile', () => {
  it('is the same text every time, each system call named once per rule kind', () => {
    expect(formatSeccompProfile()).toBe(formatSeccompProfile(planSeccompProfile()));
    const unconditional = profile.syscalls.filter((r) => !r.args && !r.includes && !r.excludes).flatMap((r) => r.names);
    expect(new Set(unconditional).size).toBe(unconditional.length);
  });

  it.each(['unshare', 'setns', 'clone', 'clone3', 'mount', 'umount2', 'pivot_root', 'fsopen', 'open_tree'])(
    '%s is never allowed unconditionally',
    (name) => {
      expect(rulesFor(name).filter((r) => r.action === 'SCMP_ACT_ALLOW' && !r.args)).toEqual([]);
    },
  );

  it.each([
    // name, flags argument index on x86-64, the namespace mask the allowing rule requires clear
    ['clone', 0, NAMESPACES],
    ['unshare', 0, NAMESPACES | 0x80],
  ] as const)(
    '%s is allowed only without namespace flags, and denied (EPERM) with CLONE_NEWUSER',
    (name, index, mask) => {
      const rules = rulesFor(name).filter((r) => !r.includes);
      const allow = rules.filter((r) => r.action === 'SCMP_ACT_ALLOW');
      expect(allow).toHaveLength(1);
      expect(allow[0]!.args).toEqual([{ index, value: mask, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }]);
      const user = rules.find((r) => r.args?.[0]?.value === CLONE_NEWUSER && r.action === 'SCMP_ACT_ERRNO');
      expect(user).toMatchObject({
        errnoRet: 1,
        args: [{ index, value: CLONE_NEWUSER, valueTwo: CLONE_NEWUSER, op: 'SCMP_CMP_MASKED_EQ' }],
      });
      // One denial per namespace flag, and together they cover the whole mask.
      const denied = rules.filter((r) => r.action === 'SCMP_ACT_ERRNO').reduce((m, r) => m | r.args![0]!.value, 0);
      expect(denied >>> 0).toBe(mask >>> 0);
    },
  );

  it.each(['ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_getfd'])(
    '%s is refused (EPERM): a notebook cannot reach into its runner',
    (name) => {
      expect(rulesFor(name)).toEqual([expect.objectContaining({ action: 'SCMP_ACT_ERRNO', errnoRet: 1 })]);
    },
  );

  // How the engine's filter decides one socket() call: the rules whose comparisons all hold (64-bit arguments).
  const holds = (a: SeccompArg, args: bigint[]): boolean => {
    const v = args[a.index]!;
    if (a.op === 'SCMP_CMP_EQ') return v === BigInt(a.value);
    if (a.op === 'SCMP_CMP_NE') return v !== BigInt(a.value);
    return (v & BigInt(a.value)) === BigInt(a.valueTwo);
  };
  const socketCall = (family: bigint, protocol = 0n) =>
    rulesFor('socket').filter((r) => (r.args ?? []).every((a) => holds(a, [family, 1n, protocol])));

  it('socket(): every family but AF_VSOCK (40), and netlink but audit (refused: "not implemented")', () => {
    for (let family = 0; family < 46; family++) {
      for (const protocol of [0n, 9n]) {
        const refused = family === 40 || (family === 16 && protocol === 9n);
        // Allowed by exactly one rule, refused by none (the profile's default: ENOSYS).
        expect(socketCall(BigInt(family), protocol), `family ${family} protocol ${protocol}`).toHaveLength(
          refused ? 0 : 1,
        );
      }
    }
    expect(rulesFor('socket').every((r) => r.action === 'SCMP_ACT_ALLOW')).toBe(true);
    expect(profile.defaultErrnoRet).toBe(38);
  });

  it('socket(): high bits (ignored by the kernel, which reads an int) do not let AF_VSOCK pass', () => {
    expect(socketCall((1n << 32n) + 40n)).toEqual([]);
    expect(socketCall((1n << 32n) + 2n)).toHaveLength(1);
  });

  it.each([
    [0, 16, [{ value: 0, size: 16 }]],
    [
      17,
      40,
      [
        { value: 17, size: 1 },
        { value: 18, size: 2 },
        { value: 20, size: 4 },
        { value: 24, size: 8 },
        { value: 32, size: 8 },
      ],
    ],
    [
      41,
      46,
      [
        { value: 41, size: 1 },
        { value: 42, size: 2 },
        { value: 44, size: 2 },
      ],
    ],
  ])('planValueBlocks(%i, %i) covers the range with aligned blocks', (from, to, blocks) => {
    expect(planValueBlocks(from, to)).toEqual(blocks);
  });

  it('clone3 says "not implemented" so the C library falls back to clone, whose flags are checked', () => {
    expect(rulesFor('clone3')).toEqual([expect.objectContaining({ action: 'SCMP_ACT_ERRNO', errnoRet: 38 })]);
  });

  it('keeps what notebooks use: fork, vfork, execve, threads (futex, set_robust_list), sockets, mmap', () => {
    const allowed = new Set(
      profile.syscalls.filter((r) => r.action === 'SCMP_ACT_ALLOW' && !r.args && !r.includes).flatMap((r) => r.names),
    );
    for (const name of [
      'fork',
      'vfork',
      'execve',
      'futex',
      'set_robust_list',
      'rseq',
      'mmap',
      'mprotect',
      'wait4',
      'pipe2',
      'socketpair',
      'prctl',
      'sched_setaffinity',
    ]) {
      expect(allowed.has(name), name).toBe(true);
    }
  });
});
