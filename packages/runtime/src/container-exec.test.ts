import { describe, expect, it } from 'vitest';
import { CONTAINER_LABEL, planCreateOptions } from './container-exec.js';

describe('planCreateOptions', () => {
  it('asks for a container without network, auto-removed, with the limits and mounts of the spec only', () => {
    const o = planCreateOptions({
      image: 'img',
      cmd: ['python3', '-c', 'pass'],
      user: '1000:1000',
      mounts: [{ source: '/host/a,b:c', target: '/instance', readOnly: true }],
      memoryBytes: 1024,
      pidsLimit: 64,
      capDrop: ['ALL'],
      readonlyRootfs: true,
      tmpfs: { '/tmp': 4096 },
      seccomp: '/p/seccomp.json',
      labels: { a: 'b' },
      wallClockSeconds: 10,
    });
    expect(o).toMatchObject({
      Image: 'img',
      User: '1000:1000',
      Labels: { [CONTAINER_LABEL]: 'run', a: 'b' },
      NetworkDisabled: true,
      AttachStdin: false,
      OpenStdin: false,
      HostConfig: {
        AutoRemove: true,
        NetworkMode: 'none',
        Mounts: [{ Type: 'bind', Source: '/host/a,b:c', Target: '/instance', ReadOnly: true }],
        Memory: 1024,
        MemorySwap: 1024,
        PidsLimit: 64,
        CapDrop: ['ALL'],
        ReadonlyRootfs: true,
        Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=4096,mode=1777' },
        SecurityOpt: ['no-new-privileges', 'seccomp=/p/seccomp.json'],
      },
    });
    expect(o.HostConfig).not.toHaveProperty('NanoCpus');
    expect(o).not.toHaveProperty('Env');
  });

  it('keeps stdin open, once, for a container that waits for go', () => {
    const o = planCreateOptions({ image: 'img', cmd: ['x'], waitForGo: true, wallClockSeconds: 1 });
    expect([o.AttachStdin, o.OpenStdin, o.StdinOnce]).toEqual([true, true, true]);
    expect(o.HostConfig?.SecurityOpt).toEqual(['no-new-privileges']);
  });
});
