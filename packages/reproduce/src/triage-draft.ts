import type { DraftTriage, Instance, TriageCause } from '@junobench/core';
import type { MissingModule } from './plan-packages.js';
import type { UnboundUse } from './plan-replay-order.js';

/** The fixed vocabulary, in the order the report lists it. */
export const TRIAGE_CAUSES: readonly TriageCause[] = [
  'needs-network',
  'needs-data',
  'needs-package',
  'needs-gpu',
  'order-dependent',
  'different-crash',
  'no-crash',
  'timeout',
];

/** What `add` learnt while preparing the draft, for naming a cause when the crash does not reproduce. */
export interface ReproductionFindings {
  /** URLs the notebook reads (code and shell lines) that were not downloaded. */
  urls: string[];
  /** Inputs that are neither in data/ nor derived, with the cells that read them. */
  missingData: { path: string; cells: number[] }[];
  /** Files made up for the draft (synthetic), and what the derivation could not know. */
  synthetic: string[];
  missingModules: MissingModule[];
  /** Lines that use a GPU. */
  gpu: { cell: number; text: string }[];
  unbound: UnboundUse[];
}

export interface RunEvidence {
  outcome: 'crash-reproduced' | 'crash-mismatch' | 'no-crash' | 'timeout' | 'kernel-died' | 'skipped-env';
  reason?: string;
  observed?: { ename: string; evalue: string; cell: number };
  expected: { ename: string; evalue: string; cell: number };
}

const NETWORK =
  /URLError|ConnectionError|ConnectTimeout|MaxRetryError|NewConnectionError|gaierror|HTTPError|SSLError|RemoteDisconnected|Temporary failure in name resolution|Name or service not known|Network is unreachable|nodename nor servname|getaddrinfo|Failed to establish a new connection|Connection refused/;
const DATA =
  /No such file or directory|does not exist|not found|FileNotFound|cannot identify image file|Could not find|!_src\.empty\(\)|Unable to open file|is not a valid file|File .* does not exist/i;
const GPU =
  /CUDA|cuda|cuDNN|NVIDIA|GPU|nvml|Torch not compiled with CUDA|no CUDA-capable device|device-side assert|NCCL|XLA/;

/**
 * Pure: one cause from the fixed vocabulary for a draft whose crash did not
 * reproduce, with what was seen and the next step; undefined when it did.
 * The run's own evidence comes first (what it raised, where), read against
 * what `add` found while preparing the draft (URLs, inputs, modules, GPU
 * lines, names used before they are defined).
 */
export function triageDraft(run: RunEvidence, found: ReproductionFindings): DraftTriage | undefined {
  if (run.outcome === 'crash-reproduced') return undefined;
  const obs = run.observed;
  const said = obs ? `${obs.ename}: ${firstLine(obs.evalue)} (code cell ${obs.cell})` : undefined;
  const observed = obs ? { observed: { ename: obs.ename, evalue: firstLine(obs.evalue), cell: obs.cell } } : {};
  const expectsGpu = GPU.test(run.expected.evalue) || GPU.test(run.expected.ename);
  if (
    run.outcome === 'skipped-env' ||
    (obs && /ModuleNotFoundError|ImportError/.test(obs.ename) && run.expected.ename !== obs.ename)
  ) {
    const named = obs ? /No module named '([^'.]+)/.exec(obs.evalue)?.[1] : undefined;
    const modules = found.missingModules.filter((m) => m.usedBeforeCrash || m.module === named);
    const list =
      modules.length > 0
        ? modules
        : named
          ? [{ module: named, cell: obs!.cell, usedBeforeCrash: true, profiles: [], platform: false }]
          : [];
    return {
      cause: 'needs-package',
      detail: `${list.map((m) => m.module).join(', ') || 'a required module'} cannot be imported here${run.reason ? ` (${run.reason})` : ''}`,
      next: list.some((m) => m.platform)
        ? 'a platform module (Colab, Kaggle) exists only there: edit reproduced.ipynb to do without it, or drop the draft'
        : `run it where the module is installed: ${list.map((m) => describeModule(m)).join('; ') || 'install the module'}`,
      modules: list.map((m) => ({
        module: m.module,
        cell: m.cell,
        usedBeforeCrash: m.usedBeforeCrash,
        ...(m.debian ? { debian: m.debian } : {}),
        ...(m.pip ? { pip: m.pip } : {}),
        profiles: m.profiles,
      })),
      ...observed,
    };
  }
  if (run.outcome === 'timeout') {
    return {
      cause: 'timeout',
      detail: run.reason ?? 'the run ran out of time',
      next: 'raise execution.cellTimeoutSeconds in instance.json, or subsample the data (junobench subsample)',
      ...observed,
    };
  }
  if (obs && (NETWORK.test(obs.ename) || NETWORK.test(obs.evalue)) && !NETWORK.test(run.expected.ename)) {
    return {
      cause: 'needs-network',
      detail: `the notebook reaches the network, which the sandbox does not have: ${said}`,
      next: `download ${found.urls.length > 0 ? found.urls.join(', ') : 'what it fetches'} into the draft's data/ (junobench add downloads URLs it can reach) and point the cells there`,
      urls: found.urls,
      ...observed,
    };
  }
  if (expectsGpu || (obs && GPU.test(obs.evalue) && !GPU.test(run.expected.evalue))) {
    return {
      cause: 'needs-gpu',
      detail: expectsGpu
        ? `the crash is a GPU one (${run.expected.ename}: ${firstLine(run.expected.evalue)}) and this runtime has none`
        : `the run needs a GPU: ${said}`,
      next: 'verify it on a machine with a CUDA GPU, or leave the draft out',
      ...observed,
    };
  }
  if (
    obs &&
    (/FileNotFoundError|IsADirectoryError|NotADirectoryError|OSError|IOError/.test(obs.ename) ||
      DATA.test(obs.evalue)) &&
    !sameCrash(run)
  ) {
    const paths = found.missingData.length > 0 ? found.missingData : [];
    return {
      cause: 'needs-data',
      detail: `an input file is missing: ${said}`,
      next: `put the data under the draft's data/ (${paths.map((p) => p.path).join(', ') || 'the file the message names'}), or give it with --data`,
      paths,
      ...observed,
    };
  }
  if (obs && /NameError|UnboundLocalError/.test(obs.ename) && found.unbound.length === 0 && !sameCrash(run)) {
    // No cell of the notebook defines it: the session had it from a cell since deleted or edited.
    const name = /name '([^']+)'/.exec(obs.evalue)?.[1] ?? '?';
    return {
      cause: 'order-dependent',
      detail: `code cell ${obs.cell} uses ${name}, which no cell of the notebook defines before the crash: the saved session had it from a cell since deleted or edited (${said})`,
      next: `add a cell that defines ${name} before code cell ${obs.cell} of reproduced.ipynb (what the session had), or drop the draft`,
      names: [name],
      ...observed,
    };
  }
  if (obs && /NameError|UnboundLocalError/.test(obs.ename) && found.unbound.length > 0) {
    return {
      cause: 'order-dependent',
      detail: `names are used before they are defined in the replay order: ${found.unbound.map((u) => `${u.name} (used in code cell ${u.usedIn}, defined in ${u.definedIn.join(', ')})`).join('; ')}`,
      next: 'set execution.cells in instance.json to an order that defines them first',
      names: found.unbound.map((u) => u.name),
      ...observed,
    };
  }
  if (run.outcome === 'no-crash') {
    return {
      cause: 'no-crash',
      detail: `ran to the end without the expected ${run.expected.ename}${found.synthetic.length > 0 ? ` — on synthetic data (${found.synthetic.join('; ')}), which may lack what made the crash` : ''}`,
      next:
        found.synthetic.length > 0
          ? 'give the real data with --data, or edit the synthetic files so they hold what the crash needs'
          : 'check that the saved crash is the one the code makes (the notebook may have been edited after it ran)',
    };
  }
  if (run.outcome === 'kernel-died') {
    return {
      cause: 'different-crash',
      detail: `the kernel died: ${run.reason ?? 'no reason given'}`,
      next: 'look at the memory the notebook needs (subsample its data)',
      ...observed,
    };
  }
  if (obs && found.missingData.length > 0 && found.missingData.some((d) => d.cells.includes(obs.cell))) {
    return {
      cause: 'needs-data',
      detail: `code cell ${obs.cell} reads an input the draft does not have and raised ${said}`,
      next: `put the data under the draft's data/ (${found.missingData.map((p) => p.path).join(', ')}), or give it with --data`,
      paths: found.missingData,
      ...observed,
    };
  }
  return {
    cause: 'different-crash',
    detail: `${said ?? 'another outcome'} instead of ${run.expected.ename} in code cell ${run.expected.cell}${found.synthetic.length > 0 ? ` — on synthetic data (${found.synthetic.join('; ')})` : ''}`,
    next:
      found.synthetic.length > 0
        ? 'the derived data lacks what the crash needs: give the real data with --data, or edit the synthetic files'
        : 'compare the run with the saved outputs: the code or the library versions may differ',
    ...observed,
  };
}

function sameCrash(run: RunEvidence): boolean {
  const o = run.observed;
  return !!o && o.ename.split('.').pop() === run.expected.ename && o.cell === run.expected.cell;
}

function firstLine(s: string): string {
  const l = s.split('\n')[0]!;
  return l.length > 200 ? `${l.slice(0, 197)}…` : l;
}

function describeModule(m: { module: string; debian?: string; pip?: string; profiles: string[] }): string {
  const how = [m.debian && `Debian ${m.debian}`, m.pip && `pip ${m.pip}`].filter(Boolean).join(', ');
  return `${m.module}${how ? ` (${how})` : ''}${m.profiles.length > 0 ? `, in the ${m.profiles.join(' and ')} image profile${m.profiles.length > 1 ? 's' : ''}` : ', in no image profile yet (add it to docker/profiles)'}`;
}

/**
 * Pure: the findings a draft's instance.json keeps (what `add` recorded in
 * its triage and data notes), for triaging a later run of it (`verify`).
 */
export function findingsOfInstance(instance: Pick<Instance, 'triage' | 'data'>): ReproductionFindings {
  const t = instance.triage;
  return {
    urls: t?.urls ?? [],
    missingData: t?.paths ?? [],
    synthetic: instance.data?.synthetic?.files ?? [],
    missingModules: (t?.modules ?? []).map((m) => ({ ...m, profiles: m.profiles ?? [], platform: false })),
    gpu: [],
    unbound: (t?.names ?? []).map((name) => ({ name, usedIn: -1, definedIn: [] })),
  };
}
