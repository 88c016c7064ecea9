import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { checkSchema, JunoError } from '@junobench/core';
import { checkWorkerName, planWorkerRecord } from './worker-presence.js';
import { planWorkerGroup } from './worker-registry.js';

describe('checkWorkerName', () => {
  it('takes letters, digits and _.@- and refuses anything else (E_USAGE)', () => {
    expect(() => checkWorkerName('gpu-box_1@lab.x')).not.toThrow();
    for (const bad of ['', '-lead', 'a b', 'a/b', 'x'.repeat(101)]) {
      expect(() => checkWorkerName(bad)).toThrow(JunoError);
    }
  });
});

describe('planWorkerRecord', () => {
  it("is a valid worker record with this process's host and pid and the runtime's identity", () => {
    const base = { kind: 'local' as const, fingerprint: 'local:f', runner: 'r'.repeat(64) };
    const record = planWorkerRecord({
      name: 'w1',
      ...base,
      group: planWorkerGroup(base),
      jobs: 2,
      identity: { kind: 'local', python: '/usr/bin/python3', pythonVersion: '3.11.2', packages: {} },
      sharedInstances: 'rel/shared',
    });
    expect(checkSchema('queue-worker', record)).toEqual([]);
    expect(record).toMatchObject({
      name: 'w1',
      host: os.hostname(),
      pid: process.pid,
      jobs: 2,
      python: '/usr/bin/python3',
    });
    expect(record.sharedInstances).toBe(`${process.cwd()}/rel/shared`);
    expect(record).not.toHaveProperty('image');
  });
});
