import { readFile } from 'node:fs/promises';
import { JunoError } from './errors.js';
import { validateOrThrow } from './validate.js';
import type { ReleaseMetadata } from './generated/schema-types.js';

/** The paper's gate: every label dimension's Cohen's kappa above 0.9. */
export const DEFAULT_MIN_KAPPA = 0.9;

/**
 * The agreement gate as one run applies it. The setting lives in one place,
 * `raw/release.json`'s `minKappa` (default 0.9); `build`, `labels agreement`,
 * `release prepare`, `release publish` and the report all read it there, and
 * a `--min-kappa` flag overrides it for one run (`setting` then keeps the
 * value the flag overrode, so the run can say so).
 */
export interface AgreementGate {
  minKappa: number;
  /** Where minKappa came from. */
  source: 'default' | 'setting' | 'flag';
  /** The settings file read (whether or not it sets minKappa). */
  file?: string;
  /** With source "flag": the value the setting (or the default) would have given. */
  setting?: number;
}

/**
 * The gate from the settings file (absent: the default), or the flag's value
 * when given. A settings file that is not valid is an error naming it.
 */
export async function readAgreementGate(file: string | undefined, flag?: number): Promise<AgreementGate> {
  let setting: number | undefined;
  if (file) {
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (text !== undefined) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        throw new JunoError('E_INPUT_FORMAT', `not valid JSON: ${(e as Error).message}`, {
          location: { file },
          cause: e,
        });
      }
      setting = validateOrThrow<ReleaseMetadata>('release-metadata', value, { file }).minKappa;
    }
  }
  const configured: AgreementGate = {
    minKappa: setting ?? DEFAULT_MIN_KAPPA,
    source: setting === undefined ? 'default' : 'setting',
    ...(file ? { file } : {}),
  };
  if (flag === undefined) return configured;
  return { minKappa: flag, source: 'flag', ...(file ? { file } : {}), setting: configured.minKappa };
}

/** "κ ≥ 0.9 (raw/release.json)", "κ ≥ 0.8 (--min-kappa, for this run only; the setting is 0.9)". */
export function describeAgreementGate(gate: AgreementGate, shownFile = gate.file ?? 'raw/release.json'): string {
  if (gate.source === 'flag')
    return `κ ≥ ${gate.minKappa} (--min-kappa, for this run only; the setting is ${gate.setting ?? DEFAULT_MIN_KAPPA} in ${shownFile})`;
  if (gate.source === 'setting') return `κ ≥ ${gate.minKappa} (minKappa in ${shownFile})`;
  return `κ ≥ ${gate.minKappa} (the default; set minKappa in ${shownFile} to change it)`;
}

/**
 * The note a run prints when its flag overrides the setting, or undefined.
 * Said once, on stderr, by every command that takes --min-kappa.
 */
export function formatGateOverride(
  gate: AgreementGate,
  shownFile = gate.file ?? 'raw/release.json',
): string | undefined {
  if (gate.source !== 'flag') return undefined;
  return `note: --min-kappa ${gate.minKappa} overrides the agreement gate for this run only (the setting is ${gate.setting ?? DEFAULT_MIN_KAPPA}, minKappa in ${shownFile})`;
}

/**
 * What raises Cohen's kappa and what does not, for a hint where the gate
 * fails. Kappa compares the annotators' own files with each other, so only a
 * change to those files moves it; adjudication and instance.json decide the
 * final labels and leave kappa where it is.
 */
export const RAISE_KAPPA_HINT =
  "kappa compares the annotators' own labels (raw/annotations/<annotator>.jsonl) with each other, so it rises only when annotators " +
  'change their own labels: agree on the label definitions (docs/formats.md, "Annotations"), then let each annotator re-label the ' +
  'disagreements independently (junobench labels sheet / labels import, or labels record). Resolving does not raise it: ' +
  "adjudicated.jsonl and instance.json decide the final labels, not the annotators' agreement. Lowering minKappa in raw/release.json " +
  'changes the gate, not the agreement (the card and the report state the gate used)';
