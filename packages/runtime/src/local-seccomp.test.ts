import { describe, expect, it } from 'vitest';
import { formatBpfProgram, planLocalSeccompProgram, type BpfInstruction } from './local-seccomp.js';

/** Runs the program the way the kernel does for one call: returns its seccomp return value. */
function decide(program: BpfInstruction[], call: { arch: number; nr: number; arg0?: bigint }): number {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(call.nr, 0);
  data.writeUInt32LE(call.arch, 4);
  data.writeBigUInt64LE(call.arg0 ?? 0n, 16);
  let a = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const ins = program[pc]!;
    if (ins.code === 0x20) a = data.readUInt32LE(ins.k);
    else if (ins.code === 0x06) return ins.k;
    else if (ins.code === 0x15) pc += a === ins.k ? ins.jt : ins.jf;
    else if (ins.code === 0x35) pc += a >= ins.k ? ins.jt : ins.jf;
    else if (ins.code === 0x45) pc += (a & ins.k) !== 0 ? ins.jt : ins.jf;
    else throw new Error(`unknown opcode ${ins.code}`);
  }
  throw new Error('the program ran off its end');
}

const ALLOW = 0x7fff0000;
const ERRNO = (e: number) => 0x00050000 | e;
const X64 = 0xc000003e;

describe('the local sandbox seccomp filter', () => {
  const program = planLocalSeccompProgram('x64')!;

  it.each([
    ['ptrace', 101, ERRNO(1)],
    ['process_vm_readv', 310, ERRNO(1)],
    ['process_vm_writev', 311, ERRNO(1)],
    ['pidfd_getfd', 438, ERRNO(1)],
    ['keyctl', 250, ERRNO(1)],
    ['io_uring_setup', 425, ERRNO(38)],
    ['read', 0, ALLOW],
    ['clone', 56, ALLOW],
    ['pidfd_open', 434, ALLOW],
    ['kill', 62, ALLOW],
  ])('x86-64 %s → %s', (_name, nr, expected) => {
    expect(decide(program, { arch: X64, nr })).toBe(expected);
  });

  it('socket(): AF_VSOCK is refused, high bits or not; other families pass', () => {
    expect(decide(program, { arch: X64, nr: 41, arg0: 40n })).toBe(ERRNO(97));
    expect(decide(program, { arch: X64, nr: 41, arg0: (1n << 32n) + 40n })).toBe(ERRNO(97));
    for (const family of [1n, 2n, 10n, 16n]) expect(decide(program, { arch: X64, nr: 41, arg0: family })).toBe(ALLOW);
  });

  it('another ABI is refused whole: 32-bit x86 calls, x32 calls', () => {
    expect(decide(program, { arch: 0x40000003, nr: 26 })).toBe(ERRNO(38));
    expect(decide(program, { arch: X64, nr: 0x40000000 + 101 })).toBe(ERRNO(38));
  });

  it('arm64 has its own numbers; an unknown architecture has no filter', () => {
    const arm = planLocalSeccompProgram('arm64')!;
    expect(decide(arm, { arch: 0xc00000b7, nr: 117 })).toBe(ERRNO(1));
    expect(decide(arm, { arch: 0xc00000b7, nr: 101 })).toBe(ALLOW);
    expect(decide(arm, { arch: 0xc00000b7, nr: 198, arg0: 40n })).toBe(ERRNO(97));
    expect(planLocalSeccompProgram('riscv64')).toBeUndefined();
  });

  it('for a nested kernel (namespaces: false): no unshare, setns, clone3, nor clone with a namespace flag', () => {
    const nested = planLocalSeccompProgram('x64', { namespaces: false })!;
    expect(decide(nested, { arch: X64, nr: 272 })).toBe(ERRNO(1));
    expect(decide(nested, { arch: X64, nr: 308 })).toBe(ERRNO(1));
    expect(decide(nested, { arch: X64, nr: 435 })).toBe(ERRNO(38));
    for (const flag of [0x10000000n, 0x20000000n, 0x40000000n, 0x00020000n, 0x08000000n])
      expect(decide(nested, { arch: X64, nr: 56, arg0: flag | 0x11n })).toBe(ERRNO(1));
    // Threads (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD…), fork, posix_spawn: allowed.
    expect(decide(nested, { arch: X64, nr: 56, arg0: 0x3d0f00n })).toBe(ALLOW);
    expect(decide(nested, { arch: X64, nr: 56, arg0: 0x11n })).toBe(ALLOW);
    expect(decide(nested, { arch: X64, nr: 101 })).toBe(ERRNO(1));
    expect(decide(nested, { arch: X64, nr: 41, arg0: 40n })).toBe(ERRNO(97));
    expect(decide(nested, { arch: X64, nr: 0 })).toBe(ALLOW);
    // The local sandbox's own program is unchanged: bubblewrap's --disable-userns does this there.
    expect(decide(program, { arch: X64, nr: 272 })).toBe(ALLOW);
  });

  it('is written as struct sock_filter, 8 bytes each, little-endian', () => {
    const bytes = formatBpfProgram(program);
    expect(bytes).toHaveLength(program.length * 8);
    expect([...bytes.subarray(0, 8)]).toEqual([0x20, 0, 0, 0, 4, 0, 0, 0]);
    expect(formatBpfProgram(planLocalSeccompProgram('x64')!).equals(bytes)).toBe(true);
  });
});
