/**
 * The seccomp filter of the local sandbox (bubblewrap's `--seccomp FD` reads
 * it as a compiled classic-BPF program: an array of `struct sock_filter`).
 * Unlike the container profile (seccomp-profile.ts) it allows everything but
 * a short list: the sandbox already has no capabilities, no network and
 * namespaces of its own (`--disable-userns`), so the filter only closes what
 * those leave open between processes of one uid inside it:
 *
 * - reaching into another process: `ptrace`, `process_vm_readv`,
 *   `process_vm_writev`, `pidfd_getfd` (EPERM);
 * - vsock sockets, which reach the virtual machine's host (EAFNOSUPPORT, as
 *   on a kernel without vsock), the family read as the kernel reads it (an
 *   `int`: the low 32 bits);
 * - io_uring, whose requests (sockets included) no filter sees (ENOSYS);
 * - the kernel's key rings, which may hold the user's keys (EPERM);
 * - every system call of another ABI (32-bit x86 through `int 0x80`, x32),
 *   whose numbers differ (ENOSYS).
 *
 * Pure data: the same bytes for the same architecture.
 */

/** Architectures the filter knows; elsewhere the sandbox runs without one (planLocalSeccompFilter gives undefined). */
const ARCHES = {
  x64: {
    audit: 0xc000003e,
    x32: true,
    calls: { ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, add_key: 248, request_key: 249, keyctl: 250 },
    socket: 41,
    namespaces: { clone: 56, unshare: 272, setns: 308 },
  },
  arm64: {
    audit: 0xc00000b7,
    x32: false,
    calls: { ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, add_key: 217, request_key: 218, keyctl: 219 },
    socket: 198,
    namespaces: { clone: 220, unshare: 97, setns: 268 },
  },
} as const;

/** Numbers shared by every architecture (system calls added since Linux 5.1). */
const COMMON = {
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  clone3: 435,
  pidfd_getfd: 438,
} as const;
/** clone's flags that make a namespace (linux/sched.h): NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
const CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;
const AF_VSOCK = 40;
const X32_SYSCALL_BIT = 0x40000000;

// Classic BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
/** Offsets in struct seccomp_data: the call number, the architecture, the low word of the first argument. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

export interface BpfInstruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const ld = (offset: number): BpfInstruction => ({ code: LD_W_ABS, jt: 0, jf: 0, k: offset });
const ret = (k: number): BpfInstruction => ({ code: RET_K, jt: 0, jf: 0, k });
const errno = (e: number) => RET_ERRNO | e;

/**
 * The program for `arch` (Node's `process.arch`), as instructions; undefined for an architecture it does not know.
 *
 * `namespaces: false` (a kernel in a slot container's nested sandbox, nest.py, which has no `--disable-userns`
 * of bubblewrap's): unshare and setns are refused (EPERM), clone with a namespace flag too, and clone3, whose
 * flags no filter can read, is "not implemented", so the C library falls back to clone.
 */
export function planLocalSeccompProgram(
  arch: string,
  { namespaces = true }: { namespaces?: boolean } = {},
): BpfInstruction[] | undefined {
  const a = (ARCHES as Record<string, (typeof ARCHES)[keyof typeof ARCHES]>)[arch];
  if (!a) return undefined;
  const refused: [number, number][] = [
    ...Object.values(a.calls).map((nr): [number, number] => [nr, EPERM]),
    [COMMON.pidfd_getfd, EPERM],
    [COMMON.io_uring_setup, ENOSYS],
    [COMMON.io_uring_enter, ENOSYS],
    [COMMON.io_uring_register, ENOSYS],
    ...(namespaces
      ? []
      : ([
          [a.namespaces.unshare, EPERM],
          [a.namespaces.setns, EPERM],
          [COMMON.clone3, ENOSYS],
        ] as [number, number][])),
  ];
  const program: BpfInstruction[] = [ld(ARCH), { code: JEQ_K, jt: 1, jf: 0, k: a.audit }, ret(errno(ENOSYS)), ld(NR)];
  if (a.x32) program.push({ code: JGE_K, jt: 0, jf: 1, k: X32_SYSCALL_BIT }, ret(errno(ENOSYS)));
  for (const [nr, e] of refused) program.push({ code: JEQ_K, jt: 0, jf: 1, k: nr }, ret(errno(e)));
  if (!namespaces) {
    // clone(): any namespace flag in its first argument → refused; otherwise allowed (threads, fork, posix_spawn).
    program.push(
      { code: JEQ_K, jt: 0, jf: 4, k: a.namespaces.clone },
      ld(ARG0_LOW),
      { code: JSET_K, jt: 0, jf: 1, k: CLONE_NAMESPACES },
      ret(errno(EPERM)),
      ret(RET_ALLOW),
    );
  }
  // socket(): not socket → allow; socket of AF_VSOCK → refused; any other family → allow.
  program.push(
    { code: JEQ_K, jt: 0, jf: 3, k: a.socket },
    ld(ARG0_LOW),
    { code: JEQ_K, jt: 0, jf: 1, k: AF_VSOCK },
    ret(errno(EAFNOSUPPORT)),
    ret(RET_ALLOW),
  );
  return program;
}

/** The program as bubblewrap reads it: 8 bytes per instruction, in the machine's byte order (little-endian on both). */
export function formatBpfProgram(program: readonly BpfInstruction[]): Buffer {
  const out = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(ins.jt, i * 8 + 2);
    out.writeUInt8(ins.jf, i * 8 + 3);
    out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return out;
}
