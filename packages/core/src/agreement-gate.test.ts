import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAgreementGate, formatGateOverride, readAgreementGate, RAISE_KAPPA_HINT } from './agreement-gate.js';
import { JunoError } from './errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-gate-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the agreement gate: one setting, a flag for one run', () => {
  it('is 0.9 without a settings file, and says where to change it', async () => {
    const gate = await readAgreementGate(path.join(dir, 'none.json'));
    expect(gate).toMatchObject({ minKappa: 0.9, source: 'default' });
    expect(describeAgreementGate(gate, 'raw/release.json')).toBe(
      'κ ≥ 0.9 (the default; set minKappa in raw/release.json to change it)',
    );
    expect(formatGateOverride(gate)).toBeUndefined();
  });

  it("is raw/release.json's minKappa, and a flag overrides it for one run, saying so", async () => {
    const file = path.join(dir, 'release.json');
    await writeFile(file, JSON.stringify({ minKappa: 0.8 }));
    expect(await readAgreementGate(file)).toMatchObject({ minKappa: 0.8, source: 'setting' });
    const flagged = await readAgreementGate(file, 0.6);
    expect(flagged).toMatchObject({ minKappa: 0.6, source: 'flag', setting: 0.8 });
    expect(formatGateOverride(flagged, 'raw/release.json')).toBe(
      'note: --min-kappa 0.6 overrides the agreement gate for this run only (the setting is 0.8, minKappa in raw/release.json)',
    );
  });

  it('refuses a settings file that is not valid, naming it', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ minKappa: 2 }));
    await expect(readAgreementGate(file)).rejects.toBeInstanceOf(JunoError);
  });

  it('says what raises kappa and that resolving does not', () => {
    expect(RAISE_KAPPA_HINT).toMatch(/rises only when annotators change their own labels/);
    expect(RAISE_KAPPA_HINT).toMatch(/Resolving does not raise it/);
  });
});
