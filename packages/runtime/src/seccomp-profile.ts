import { formatJson } from '@junobench/core';

/**
 * The seccomp profile of every container the docker runtime starts: Podman's
 * default profile (containers-common 0.50, the one Debian bookworm's Podman
 * applies when it is given none), minus the system calls that create or join
 * namespaces. Why: Podman's default lets any process call `unshare` and
 * `clone` with CLONE_NEWUSER, so a notebook could make itself root of a user
 * namespace of its own and, there, mount file systems, make network
 * namespaces, and reach the large part of the host kernel that is only
 * guarded by "has CAP_SYS_ADMIN in some user namespace" (the source of most
 * container escapes of recent years). A notebook has no business with
 * namespaces: pandas, sklearn, torch threads, subprocess and multiprocessing
 * only use plain clone/fork/vfork/execve, which stay allowed.
 *
 * Nor does it need to reach another process: `ptrace`, `process_vm_readv`,
 * `process_vm_writev` and `pidfd_getfd` are refused, so a notebook can
 * neither trace its runner nor read or write its memory nor take a copy of
 * its file descriptors (the channel its result travels on). And no vsock
 * socket: AF_VSOCK reaches the virtual machine's host and shares its port
 * space with every other guest process.
 *
 * Written in the engines' common profile format (Docker's, which Podman reads
 * too). Data, not code: the same text on every machine (formatSeccompProfile).
 */

/** clone/unshare flags that make a new namespace (linux/sched.h). */
const NAMESPACE_FLAGS = {
  CLONE_NEWNS: 0x00020000,
  CLONE_NEWCGROUP: 0x02000000,
  CLONE_NEWUTS: 0x04000000,
  CLONE_NEWIPC: 0x08000000,
  CLONE_NEWUSER: 0x10000000,
  CLONE_NEWPID: 0x20000000,
  CLONE_NEWNET: 0x40000000,
} as const;
/** Only unshare() knows it: in clone() the same bit is part of the exit signal. */
const CLONE_NEWTIME = 0x00000080;

const EPERM = 1;
const ENOSYS = 38;

/**
 * Podman's default allow list (the unconditional SCMP_ACT_ALLOW rule of
 * /usr/share/containers/seccomp.json, containers-common 0.50.1), without
 * clone, clone3, unshare and setns (rules below) and the mount family
 * (mount, umount, umount2, pivot_root, fsopen, fsconfig, fsmount, fspick,
 * move_mount, open_tree, mount_setattr): without a user namespace those need
 * CAP_SYS_ADMIN, which no process in the container has, so they can only
 * fail; denied outright, a bug in their permission checks is out of reach.
 */
const ALLOWED = [
  '_llseek',
  '_newselect',
  'accept',
  'accept4',
  'access',
  'adjtimex',
  'alarm',
  'bind',
  'brk',
  'capget',
  'capset',
  'chdir',
  'chmod',
  'chown',
  'chown32',
  'clock_adjtime',
  'clock_adjtime64',
  'clock_getres',
  'clock_getres_time64',
  'clock_gettime',
  'clock_gettime64',
  'clock_nanosleep',
  'clock_nanosleep_time64',
  'close',
  'close_range',
  'connect',
  'copy_file_range',
  'creat',
  'dup',
  'dup2',
  'dup3',
  'epoll_create',
  'epoll_create1',
  'epoll_ctl',
  'epoll_ctl_old',
  'epoll_pwait',
  'epoll_pwait2',
  'epoll_wait',
  'epoll_wait_old',
  'eventfd',
  'eventfd2',
  'execve',
  'execveat',
  'exit',
  'exit_group',
  'faccessat',
  'faccessat2',
  'fadvise64',
  'fadvise64_64',
  'fallocate',
  'fanotify_mark',
  'fchdir',
  'fchmod',
  'fchmodat',
  'fchown',
  'fchown32',
  'fchownat',
  'fcntl',
  'fcntl64',
  'fdatasync',
  'fgetxattr',
  'flistxattr',
  'flock',
  'fork',
  'fremovexattr',
  'fsetxattr',
  'fstat',
  'fstat64',
  'fstatat64',
  'fstatfs',
  'fstatfs64',
  'fsync',
  'ftruncate',
  'ftruncate64',
  'futex',
  'futex_time64',
  'futimesat',
  'get_mempolicy',
  'get_robust_list',
  'get_thread_area',
  'getcpu',
  'getcwd',
  'getdents',
  'getdents64',
  'getegid',
  'getegid32',
  'geteuid',
  'geteuid32',
  'getgid',
  'getgid32',
  'getgroups',
  'getgroups32',
  'getitimer',
  'getpeername',
  'getpgid',
  'getpgrp',
  'getpid',
  'getppid',
  'getpriority',
  'getrandom',
  'getresgid',
  'getresgid32',
  'getresuid',
  'getresuid32',
  'getrlimit',
  'getrusage',
  'getsid',
  'getsockname',
  'getsockopt',
  'gettid',
  'gettimeofday',
  'getuid',
  'getuid32',
  'getxattr',
  'inotify_add_watch',
  'inotify_init',
  'inotify_init1',
  'inotify_rm_watch',
  'io_cancel',
  'io_destroy',
  'io_getevents',
  'io_setup',
  'io_submit',
  'ioctl',
  'ioprio_get',
  'ioprio_set',
  'ipc',
  'keyctl',
  'kill',
  'landlock_add_rule',
  'landlock_create_ruleset',
  'landlock_restrict_self',
  'lchown',
  'lchown32',
  'lgetxattr',
  'link',
  'linkat',
  'listen',
  'listxattr',
  'llistxattr',
  'lremovexattr',
  'lseek',
  'lsetxattr',
  'lstat',
  'lstat64',
  'madvise',
  'mbind',
  'membarrier',
  'memfd_create',
  'memfd_secret',
  'mincore',
  'mkdir',
  'mkdirat',
  'mknod',
  'mknodat',
  'mlock',
  'mlock2',
  'mlockall',
  'mmap',
  'mmap2',
  'mprotect',
  'mq_getsetattr',
  'mq_notify',
  'mq_open',
  'mq_timedreceive',
  'mq_timedreceive_time64',
  'mq_timedsend',
  'mq_timedsend_time64',
  'mq_unlink',
  'mremap',
  'msgctl',
  'msgget',
  'msgrcv',
  'msgsnd',
  'msync',
  'munlock',
  'munlockall',
  'munmap',
  'name_to_handle_at',
  'nanosleep',
  'newfstatat',
  'open',
  'openat',
  'openat2',
  'pause',
  'pidfd_open',
  'pidfd_send_signal',
  'pipe',
  'pipe2',
  'pkey_alloc',
  'pkey_free',
  'pkey_mprotect',
  'poll',
  'ppoll',
  'ppoll_time64',
  'prctl',
  'pread64',
  'preadv',
  'preadv2',
  'prlimit64',
  'process_mrelease',
  'pselect6',
  'pselect6_time64',
  'pwrite64',
  'pwritev',
  'pwritev2',
  'read',
  'readahead',
  'readdir',
  'readlink',
  'readlinkat',
  'readv',
  'reboot',
  'recv',
  'recvfrom',
  'recvmmsg',
  'recvmmsg_time64',
  'recvmsg',
  'remap_file_pages',
  'removexattr',
  'rename',
  'renameat',
  'renameat2',
  'restart_syscall',
  'rmdir',
  'rseq',
  'rt_sigaction',
  'rt_sigpending',
  'rt_sigprocmask',
  'rt_sigqueueinfo',
  'rt_sigreturn',
  'rt_sigsuspend',
  'rt_sigtimedwait',
  'rt_sigtimedwait_time64',
  'rt_tgsigqueueinfo',
  'sched_get_priority_max',
  'sched_get_priority_min',
  'sched_getaffinity',
  'sched_getattr',
  'sched_getparam',
  'sched_getscheduler',
  'sched_rr_get_interval',
  'sched_rr_get_interval_time64',
  'sched_setaffinity',
  'sched_setattr',
  'sched_setparam',
  'sched_setscheduler',
  'sched_yield',
  'seccomp',
  'select',
  'semctl',
  'semget',
  'semop',
  'semtimedop',
  'semtimedop_time64',
  'send',
  'sendfile',
  'sendfile64',
  'sendmmsg',
  'sendmsg',
  'sendto',
  'set_mempolicy',
  'set_robust_list',
  'set_thread_area',
  'set_tid_address',
  'setfsgid',
  'setfsgid32',
  'setfsuid',
  'setfsuid32',
  'setgid',
  'setgid32',
  'setgroups',
  'setgroups32',
  'setitimer',
  'setpgid',
  'setpriority',
  'setregid',
  'setregid32',
  'setresgid',
  'setresgid32',
  'setresuid',
  'setresuid32',
  'setreuid',
  'setreuid32',
  'setrlimit',
  'setsid',
  'setsockopt',
  'setuid',
  'setuid32',
  'setxattr',
  'shmat',
  'shmctl',
  'shmdt',
  'shmget',
  'shutdown',
  'sigaction',
  'sigaltstack',
  'signal',
  'signalfd',
  'signalfd4',
  'sigpending',
  'sigprocmask',
  'sigreturn',
  'sigsuspend',
  'socketpair',
  'splice',
  'stat',
  'stat64',
  'statfs',
  'statfs64',
  'statx',
  'symlink',
  'symlinkat',
  'sync',
  'sync_file_range',
  'syncfs',
  'syscall',
  'sysinfo',
  'syslog',
  'tee',
  'tgkill',
  'time',
  'timer_create',
  'timer_delete',
  'timer_getoverrun',
  'timer_gettime',
  'timer_gettime64',
  'timer_settime',
  'timer_settime64',
  'timerfd',
  'timerfd_create',
  'timerfd_gettime',
  'timerfd_gettime64',
  'timerfd_settime',
  'timerfd_settime64',
  'times',
  'tkill',
  'truncate',
  'truncate64',
  'ugetrlimit',
  'umask',
  'uname',
  'unlink',
  'unlinkat',
  'utime',
  'utimensat',
  'utimensat_time64',
  'utimes',
  'vfork',
  'wait4',
  'waitid',
  'waitpid',
  'write',
  'writev',
] as const;

/** Podman's default denials (EPERM rather than "not implemented"): obsolete, dangerous or host-wide calls. */
const DENIED = [
  'bdflush',
  'io_pgetevents',
  'kexec_file_load',
  'kexec_load',
  'migrate_pages',
  'move_pages',
  'nfsservctl',
  'nice',
  'oldfstat',
  'oldlstat',
  'oldolduname',
  'oldstat',
  'olduname',
  'pciconfig_iobase',
  'pciconfig_read',
  'pciconfig_write',
  'sgetmask',
  'ssetmask',
  'swapcontext',
  'swapoff',
  'swapon',
  'sysfs',
  'uselib',
  'userfaultfd',
  'ustat',
  'vm86',
  'vm86old',
  'vmsplice',
] as const;

/**
 * What reaches into another process (Podman's default allows them to a
 * process of the same uid, such as the runner of the notebook's kernel).
 */
const OTHER_PROCESSES = ['ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_getfd'] as const;

const AF_NETLINK = 16;
const NETLINK_AUDIT = 9;
const AF_VSOCK = 40;
/** Address families the kernel knows (AF_MAX of Linux 6.x); higher ones fail with EAFNOSUPPORT there anyway. */
const AF_MAX = 46;

/**
 * Aligned blocks [value, value + size) covering `from`…`to - 1`, each one
 * masked comparison (seccomp compares an argument against one value per
 * rule, and runc turns two comparisons of the same argument into two rules,
 * so "neither 16 nor 40" cannot be one rule).
 */
export function planValueBlocks(from: number, to: number): { value: number; size: number }[] {
  const blocks: { value: number; size: number }[] = [];
  let at = from;
  while (at < to) {
    let size = 1;
    while (at % (size * 2) === 0 && at + size * 2 <= to) size *= 2;
    blocks.push({ value: at, size });
    at += size;
  }
  return blocks;
}

/**
 * socket(): allowed for every address family but AF_VSOCK, and for netlink
 * but its audit protocol; those fall to the profile's default ("not
 * implemented"). Only allowing rules: runc refuses a profile that mixes
 * allowing and refusing rules on socket's family ("file exists"). The family
 * is compared on its low 32 bits (MASKED_EQ), as the kernel reads an `int`: a
 * value with high bits set cannot pass for another.
 */
function socketRules(): SeccompRule[] {
  const low32 = (value: number, size = 1): SeccompArg => ({
    index: 0,
    value: 0xffffffff - (size - 1),
    valueTwo: value,
    op: 'SCMP_CMP_MASKED_EQ',
  });
  const families = [
    ...planValueBlocks(0, AF_NETLINK),
    ...planValueBlocks(AF_NETLINK + 1, AF_VSOCK),
    ...planValueBlocks(AF_VSOCK + 1, AF_MAX),
  ];
  return [
    ...families.map((b): SeccompRule => ({
      names: ['socket'],
      action: 'SCMP_ACT_ALLOW',
      args: [low32(b.value, b.size)],
    })),
    // Netlink audit sockets write the host's audit log (CAP_AUDIT_WRITE is dropped anyway).
    {
      names: ['socket'],
      action: 'SCMP_ACT_ALLOW',
      args: [low32(AF_NETLINK), { index: 2, value: NETLINK_AUDIT, valueTwo: 0, op: 'SCMP_CMP_NE' }],
      comment: 'netlink, but no audit socket',
    },
  ];
}

/**
 * Calls Podman's default allows only with a capability the container never
 * has (CapDrop ALL; the wrapper keeps CHOWN, DAC_OVERRIDE, FOWNER, SETUID,
 * SETGID, SETPCAP): denied as Podman denies them without it.
 */
const DENIED_WITHOUT_CAPABILITY = [
  'open_by_handle_at', // CAP_DAC_READ_SEARCH: opens any file of the host's file system by handle ("shocker").
  'bpf',
  'fanotify_init',
  'lookup_dcookie',
  'perf_event_open',
  'quotactl',
  'setdomainname',
  'sethostname', // CAP_SYS_ADMIN
  'chroot', // CAP_SYS_CHROOT
  'delete_module',
  'finit_module',
  'init_module',
  'query_module', // CAP_SYS_MODULE
  'acct', // CAP_SYS_PACCT
  'kcmp',
  'process_madvise', // CAP_SYS_PTRACE
  'ioperm',
  'iopl', // CAP_SYS_RAWIO
  'clock_settime',
  'clock_settime64',
  'settimeofday',
  'stime', // CAP_SYS_TIME
  'vhangup', // CAP_SYS_TTY_CONFIG
] as const;

export interface SeccompArg {
  index: number;
  value: number;
  valueTwo: number;
  op: 'SCMP_CMP_EQ' | 'SCMP_CMP_NE' | 'SCMP_CMP_MASKED_EQ';
}

export interface SeccompRule {
  names: string[];
  action: 'SCMP_ACT_ALLOW' | 'SCMP_ACT_ERRNO';
  errnoRet?: number;
  args?: SeccompArg[];
  includes?: { arches: string[] };
  excludes?: { arches: string[] };
  comment?: string;
}

export interface SeccompProfile {
  defaultAction: 'SCMP_ACT_ERRNO';
  defaultErrnoRet: number;
  archMap: { architecture: string; subArchitectures: string[] }[];
  syscalls: SeccompRule[];
}

/** Architectures where clone() takes its flags second (the stack pointer comes first). */
const FLAGS_SECOND = ['s390', 's390x'];

/**
 * clone/unshare rules on the flags argument: allowed when no flag of `mask`
 * is set, denied (EPERM, so tools say "Operation not permitted") when any
 * is. Each namespace flag gets its own rule: seccomp compares an argument
 * against a mask for equality only, so "some flag set" is one test per flag.
 */
function flagRules(name: string, flags: Record<string, number>, comment: string): SeccompRule[] {
  const mask = Object.values(flags).reduce((a, b) => a + b, 0);
  const rules: SeccompRule[] = [];
  const variants: { index: number; arches: Pick<SeccompRule, 'includes' | 'excludes'> }[] =
    name === 'clone'
      ? [
          { index: 0, arches: { excludes: { arches: FLAGS_SECOND } } },
          { index: 1, arches: { includes: { arches: FLAGS_SECOND } } },
        ]
      : [{ index: 0, arches: {} }];
  for (const { index, arches } of variants) {
    rules.push({
      names: [name],
      action: 'SCMP_ACT_ALLOW',
      args: [{ index, value: mask, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }],
      ...arches,
      comment: `${name} without a namespace flag`,
    });
    for (const [flag, bit] of Object.entries(flags)) {
      rules.push({
        names: [name],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: EPERM,
        args: [{ index, value: bit, valueTwo: bit, op: 'SCMP_CMP_MASKED_EQ' }],
        ...arches,
        comment: `${name} with ${flag}: ${comment}`,
      });
    }
  }
  return rules;
}

/**
 * The profile (see the top of this file). Pure: the same object every call.
 *
 * `nesting`: the profile of a slot container (container-slots.ts), whose
 * runner forks every kernel into namespaces of its own (nest.py): it may
 * unshare and mount. Its kernels may not: inside their sandbox they have no
 * capability, may make no user namespace and run under the local runtime's
 * seccomp program, which refuses what this profile refuses between
 * processes (ptrace, process_vm_*, pidfd_getfd, io_uring, key rings, vsock).
 */
export function planSeccompProfile({ nesting = false }: { nesting?: boolean } = {}): SeccompProfile {
  const eq = (index: number, value: number, op: SeccompArg['op'] = 'SCMP_CMP_EQ'): SeccompArg => ({
    index,
    value,
    valueTwo: 0,
    op,
  });
  return {
    // Podman's choice: a call this profile does not know (newer than it) is
    // "not implemented", so libraries fall back to the older call they know.
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: ENOSYS,
    archMap: [
      { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
      { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
      { architecture: 'SCMP_ARCH_S390X', subArchitectures: ['SCMP_ARCH_S390'] },
    ],
    syscalls: [
      { names: [...ALLOWED], action: 'SCMP_ACT_ALLOW' },
      { names: [...DENIED], action: 'SCMP_ACT_ERRNO', errnoRet: EPERM, comment: "denied by Podman's default profile" },
      {
        names: [...DENIED_WITHOUT_CAPABILITY],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: EPERM,
        comment: 'needs a capability the container never has',
      },
      // Only the personalities Podman allows: others (e.g. READ_IMPLIES_EXEC) weaken the process's memory protections.
      ...[0, 8, 0x20000, 0x20008, 0xffffffff].map((p): SeccompRule => ({
        names: ['personality'],
        action: 'SCMP_ACT_ALLOW',
        args: [eq(0, p)],
      })),
      { names: ['sync_file_range2'], action: 'SCMP_ACT_ALLOW', includes: { arches: ['ppc64le'] } },
      {
        names: ['arm_fadvise64_64', 'arm_sync_file_range', 'breakpoint', 'cacheflush', 'set_tls', 'sync_file_range2'],
        action: 'SCMP_ACT_ALLOW',
        includes: { arches: ['arm', 'arm64'] },
      },
      { names: ['arch_prctl'], action: 'SCMP_ACT_ALLOW', includes: { arches: ['amd64', 'x32'] } },
      { names: ['modify_ldt'], action: 'SCMP_ACT_ALLOW', includes: { arches: ['amd64', 'x32', 'x86'] } },
      {
        names: ['s390_pci_mmio_read', 's390_pci_mmio_write', 's390_runtime_instr'],
        action: 'SCMP_ACT_ALLOW',
        includes: { arches: ['s390', 's390x'] },
      },
      {
        names: [...OTHER_PROCESSES],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: EPERM,
        comment: "a notebook may not reach into another process (its runner's memory or result channel)",
      },
      ...socketRules(),
      ...(nesting ? nestingRules() : namespaceRules()),
    ],
  };
}

/** The system calls that mount, unmount or change the mount tree. */
const MOUNT_FAMILY = [
  'mount',
  'umount',
  'umount2',
  'pivot_root',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'move_mount',
  'open_tree',
  'mount_setattr',
] as const;

/** What a slot container's runner needs to set up each kernel's sandbox (nest.py); the rest of the mount family stays out. */
function nestingRules(): SeccompRule[] {
  return [
    {
      names: ['clone', 'unshare'],
      action: 'SCMP_ACT_ALLOW',
      comment: "the runner makes each kernel's namespaces; inside them a kernel can make no user namespace",
    },
    {
      names: ['mount', 'umount2'],
      action: 'SCMP_ACT_ALLOW',
      comment: "the runner mounts each kernel's file systems in the kernel's own namespaces",
    },
    {
      names: MOUNT_FAMILY.filter((n) => n !== 'mount' && n !== 'umount2'),
      action: 'SCMP_ACT_ERRNO',
      errnoRet: EPERM,
      comment: "not needed by the runner's sandboxes",
    },
    { names: ['setns'], action: 'SCMP_ACT_ERRNO', errnoRet: EPERM, comment: 'nothing joins another namespace' },
    {
      names: ['clone3'],
      action: 'SCMP_ACT_ERRNO',
      errnoRet: ENOSYS,
      comment: 'falls back to clone, as in the profile without nesting',
    },
  ];
}

/** No namespaces, no mounts (see the top of this file). */
function namespaceRules(): SeccompRule[] {
  return [
    // Namespaces: threads, fork, vfork and posix_spawn are clone without these flags.
    ...flagRules(
      'clone',
      NAMESPACE_FLAGS,
      "a notebook may not make namespaces (a user namespace gives it root's powers over them)",
    ),
    ...flagRules(
      'unshare',
      { ...NAMESPACE_FLAGS, CLONE_NEWTIME },
      "a notebook may not make namespaces (a user namespace gives it root's powers over them)",
    ),
    // clone3 passes its flags in memory, which seccomp cannot read: "not
    // implemented" makes the C library (glibc ≥ 2.34 threads) fall back to
    // clone, whose flags the rules above check (Docker does the same).
    {
      names: ['clone3'],
      action: 'SCMP_ACT_ERRNO',
      errnoRet: ENOSYS,
      comment: 'falls back to clone, whose flags can be checked',
    },
    // Joining another process's namespaces: nothing in the container has CAP_SYS_ADMIN, and nothing needs it.
    { names: ['setns'], action: 'SCMP_ACT_ERRNO', errnoRet: EPERM, comment: 'a notebook may not join namespaces' },
    {
      names: [...MOUNT_FAMILY],
      action: 'SCMP_ACT_ERRNO',
      errnoRet: EPERM,
      comment: 'mounting needs CAP_SYS_ADMIN, which nothing in the container has',
    },
  ];
}

/** The profile as the engines read it: sorted-key JSON, byte-identical on every machine. */
export function formatSeccompProfile(profile: SeccompProfile = planSeccompProfile()): string {
  return formatJson(profile);
}
