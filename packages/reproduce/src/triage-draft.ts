import type { DraftTriage, Instance, TriageCause } from '@junobench/core';
import type { MissingModule } from './plan-packages.js';
import { findRemovedApi } from './removed-apis.js';
import type { UnboundUse } from './plan-replay-order.js';
import type { DefinedAfterCrash } from './find-session-state.js';

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
  /** What each derivation took from the code (`data/x.csv: 200 rows; columns …`), to say what it lacked. */
  derived?: string[];
  missingModules: MissingModule[];
  /** Lines that use a GPU. */
  gpu: { cell: number; text: string }[];
  unbound: UnboundUse[];
  /** Runs of the saved session before the crash that no cell of the notebook holds any more (deleted or re-run). */
  unseenRuns?: { count: number; from: number; to: number; justBefore?: { from: number; to: number } };
  /** The line the saved traceback shows crashing in the crash cell, when the cell's source no longer holds it. */
  editedCrashLine?: { line: number; text: string };
  /** Names the crash cell uses that every defining cell bound only after the crash (original cell indices). */
  definedAfterCrash?: DefinedAfterCrash[];
  /** Code cells of reproduced.ipynb that ran without error in the saved session. */
  ranInSession?: number[];
}

/** Modules whose only work in a notebook is to download a dataset: missing, the obstacle is the data, not code. */
const DOWNLOADER_MODULES = new Set(['kagglehub', 'opendatasets', 'gdown', 'kaggle', 'wget', 'kaggle_datasets']);

export interface RunEvidence {
  outcome: 'crash-reproduced' | 'crash-mismatch' | 'no-crash' | 'timeout' | 'kernel-died' | 'skipped-env';
  reason?: string;
  observed?: { ename: string; evalue: string; cell: number };
  expected: { ename: string; evalue: string; cell: number };
  /** The code cell that ran out of time, when one did. */
  timedOutCell?: number;
}

const NETWORK =
  /URLError|ConnectionError|ConnectTimeout|MaxRetryError|NewConnectionError|gaierror|HTTPError|SSLError|RemoteDisconnected|Temporary failure in name resolution|Name or service not known|Network is unreachable|nodename nor servname|getaddrinfo|Failed to establish a new connection|Connection refused/;
/**
 * A library's own words for a download that failed, when it caught the network error and raised its own:
 * torchvision's datasets (`Error downloading train-images-idx3-ubyte.gz`, after printing the URLError), Keras'
 * `URL fetch failure on …`, Hugging Face's `couldn't connect to …`.
 */
const DOWNLOAD_FAILED =
  /\b(?:error|errors|failed|failure|unable|could ?n[o']t|cannot|can't)\b[^\n.]{0,30}?\b(?:download(?:ing)?|connect(?:ing)?|fetch(?:ing)?|reach)\b|\b(?:download|fetch)\w* (?:error|failed|failure)\b/i;
/** Pure: whether a run's failure is the network's (a connection or name lookup that failed, a download that did). */
export function isNetworkFailure(observed: { ename: string; evalue: string }): boolean {
  return NETWORK.test(observed.ename) || NETWORK.test(observed.evalue) || DOWNLOAD_FAILED.test(observed.evalue);
}

/**
 * NLTK's data (stop words, tokenizer models, WordNet) missing: `nltk.download(...)` fetches it from the network and,
 * offline, only prints an error; the LookupError comes later, where the data is used.
 */
const NLTK_RESOURCE = /Resource\s+\S*?(\w+)\S*\s+not found[\s\S]*nltk\.download\(['"]?([\w/.-]+)?/;
const DATA =
  /No such file or directory|does not exist|not found|FileNotFound|cannot identify image file|Could not find|!_src\.empty\(\)|Unable to open file|is not a valid file|File .* does not exist/i;
const GPU =
  /CUDA|cuda|cuDNN|NVIDIA|GPU|nvml|Torch not compiled with CUDA|no CUDA-capable device|device-side assert|NCCL|XLA|support for mps devices|MPS backend/;

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
  const ctx: TriageContext = {
    ...(obs ? { obs } : {}),
    ...(obs ? { said: `${obs.ename}: ${firstLine(obs.evalue)} (code cell ${obs.cell})` } : {}),
    observed: obs ? { observed: { ename: obs.ename, evalue: firstLine(obs.evalue), cell: obs.cell } } : {},
  };
  return triageEnvironment(run, found, ctx) ?? triageCode(run, found, ctx) ?? triageOutcome(run, found, ctx);
}

interface TriageContext {
  obs?: NonNullable<RunEvidence['observed']>;
  /** The observed exception as the details quote it. */
  said?: string;
  observed: { observed?: { ename: string; evalue: string; cell: number } };
}

/** What the sandbox lacks: a library version, a package, time, the network, a GPU, an input file. */
function triageEnvironment(run: RunEvidence, found: ReproductionFindings, ctx: TriageContext): DraftTriage | undefined {
  const { obs, said, observed } = ctx;
  const expectsGpu = GPU.test(run.expected.evalue) || GPU.test(run.expected.ename);
  const removed = obs && !sameCrash(run) ? findRemovedApi(obs) : undefined;
  if (removed) {
    return {
      cause: 'needs-package',
      detail: `the notebook uses ${removed.api}, which ${removed.library} removed in ${removed.removedIn}: this runtime's ${removed.library} is newer than the one the notebook ran with (${said})`,
      next: `run it with a ${removed.library} older than ${removed.removedIn}, or edit code cell ${obs!.cell} of reproduced.ipynb to the current API (a hand edit, recorded in instance.json)`,
      modules: [{ module: removed.library, cell: obs!.cell, usedBeforeCrash: true, profiles: [] }],
      ...observed,
    };
  }
  const fetcher = missingDownloader(run, found);
  if (fetcher) {
    return {
      cause: 'needs-network',
      detail: `the notebook fetches its data with ${fetcher}, which is not installed here, from the network, which the sandbox does not have${found.urls.length > 0 ? ` (${found.urls.join(', ')})` : ''}`,
      next: `download ${found.urls.length > 0 ? found.urls.join(', ') : 'the dataset'} elsewhere, give the files with --data, and replace the ${fetcher} call in reproduced.ipynb by the path of the copy (a hand edit, recorded in instance.json)`,
      urls: found.urls,
      ...observed,
    };
  }
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
    const versioned = list.filter((m) => m.installed);
    const unknown = list.filter((m) => !m.installed && !m.platform && !m.debian && !m.pip && m.profiles.length === 0);
    return {
      cause: 'needs-package',
      detail: `${list.map((m) => m.module).join(', ') || 'a required module'} cannot be imported here${run.reason ? ` (${run.reason})` : ''}${versioned.length > 0 ? `; ${versioned.map((m) => `${m.module} is not in the installed ${m.installed}: another version of it has it`).join('; ')}` : ''}`,
      next: list.some((m) => m.platform)
        ? 'a platform module (Colab, Kaggle) exists only there: edit reproduced.ipynb to do without it, or drop the draft'
        : `run it where the module is installed: ${list.map((m) => describeModule(m)).join('; ') || 'install the module'}${unknown.length > 0 ? ` (${unknown.map((m) => m.module).join(', ')}: no package of that name is known — if it is a module file of the notebook's own, such as ${unknown[0]!.module}.py beside it, put it in the draft's folder)` : ''}`,
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
    // In the crash cell itself, the saved run stopped there with the crash; a replay that runs on past the limit
    // may have passed the point where it crashed (other data or versions), or may just be slower.
    const inCrashCell = run.timedOutCell === run.expected.cell;
    return {
      cause: 'timeout',
      detail: `${run.reason ?? 'the run ran out of time'}${inCrashCell ? ` in code cell ${run.expected.cell}, where the saved run crashed with ${run.expected.ename}: the replay ran past the time limit without that crash` : ''}`,
      next: inCrashCell
        ? `if the saved run crashed late in a long computation, raise execution.cellTimeoutSeconds in instance.json or subsample the data (junobench subsample); if it crashed early (its traceback shows the first call of a loop), the data or the library version differs: give the real data with --data, or run it with the versions it ran with`
        : 'raise execution.cellTimeoutSeconds in instance.json, or subsample the data (junobench subsample)',
      ...observed,
    };
  }
  const nltk = triageNltkData(run, found, ctx);
  if (nltk) return nltk;
  const downloadFailed =
    !!obs && DOWNLOAD_FAILED.test(obs.evalue) && !DOWNLOAD_FAILED.test(run.expected.evalue) && !sameCrash(run);
  if (
    obs &&
    (NETWORK.test(obs.ename) || NETWORK.test(obs.evalue) || downloadFailed) &&
    !NETWORK.test(run.expected.ename)
  ) {
    return {
      cause: 'needs-network',
      detail: `the notebook reaches the network${found.urls.length > 0 ? ` (${found.urls.join(', ')})` : ''}, which the sandbox does not have: ${said}`,
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
      // A missing column (`['ID'] not found in axis`) or name is no missing file.
      (!/^(?:KeyError|IndexError|AttributeError|NameError|TypeError|UnboundLocalError)$/.test(
        obs.ename.split('.').pop() ?? '',
      ) &&
        DATA.test(obs.evalue))) &&
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
  return undefined;
}

/** NLTK's data missing where it is used: the network that its `nltk.download(...)` needed. */
function triageNltkData(run: RunEvidence, found: ReproductionFindings, ctx: TriageContext): DraftTriage | undefined {
  const { obs, observed } = ctx;
  const m = obs && /LookupError$/.test(obs.ename) && !sameCrash(run) ? NLTK_RESOURCE.exec(obs.evalue) : null;
  if (!m) return undefined;
  const resource = m[2] ?? m[1]!;
  return {
    cause: 'needs-network',
    detail: `NLTK's data '${resource}' is not here (LookupError in code cell ${obs!.cell}): nltk.download('${resource}') fetches it from the network, which the sandbox does not have`,
    next: `download it elsewhere (python -m nltk.downloader ${resource} -d <draft>/data/nltk_data), and add nltk.data.path.append('data/nltk_data') on top of code cell ${obs!.cell} of reproduced.ipynb (a hand edit, recorded in instance.json)`,
    urls: found.urls,
    ...observed,
  };
}

/** What the code says: names it lacks, cells that do not parse, a crashing line edited away. */
function triageCode(run: RunEvidence, found: ReproductionFindings, ctx: TriageContext): DraftTriage | undefined {
  const { obs, said, observed } = ctx;
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
  if (obs && /^(?:SyntaxError|IndentationError|TabError)$/.test(obs.ename.split('.').pop() ?? '') && !sameCrash(run)) {
    return {
      cause: 'different-crash',
      detail: `code cell ${obs.cell} of reproduced.ipynb does not parse as saved (${said}): the notebook was edited after the run that crashed`,
      next: `repair code cell ${obs.cell} by hand (the saved traceback shows the line that ran), then: junobench verify`,
      ...observed,
    };
  }
  const edited = found.editedCrashLine;
  if (edited && (run.outcome === 'no-crash' || (run.outcome === 'crash-mismatch' && !sameCrash(run)))) {
    return {
      cause: run.outcome === 'no-crash' ? 'no-crash' : 'different-crash',
      detail: `the saved traceback shows line ${edited.line} of code cell ${run.expected.cell} crashing (${JSON.stringify(edited.text)}), and the cell's source no longer holds that line: the cell was edited after the crash, so the replay ${run.outcome === 'no-crash' ? `ran to the end without the expected ${run.expected.ename}` : `raised ${said ?? 'another outcome'} instead`}${describeUnseenRuns(found.unseenRuns)}`,
      next: `put the line back into code cell ${run.expected.cell} of reproduced.ipynb as the saved traceback shows it (a hand edit, recorded in instance.json), then: junobench verify`,
      ...observed,
    };
  }
  const later = found.definedAfterCrash ?? [];
  if (later.length > 0 && (run.outcome === 'no-crash' || (run.outcome === 'crash-mismatch' && !sameCrash(run)))) {
    const names = later.map((l) => l.name);
    const where = later
      .map(
        (l) =>
          `${l.name} (${l.definers.map((d) => `original code cell ${d.cell}${d.count === null ? ', never run' : `, at In [${d.count}]`}`).join('; ')})`,
      )
      .join(', ');
    return {
      cause: run.outcome === 'no-crash' ? 'no-crash' : 'different-crash',
      detail: `code cell ${run.expected.cell} uses ${where}: the notebook's cells that define ${names.length === 1 ? 'it' : 'them'} ran only after the crash, so the value the crash met came from a run the notebook no longer holds (that cell's earlier run, or a cell since deleted), and the replay's differs: it ${run.outcome === 'no-crash' ? `ran to the end without the expected ${run.expected.ename}` : `raised ${said ?? 'another outcome'} instead`}${found.synthetic.length > 0 ? ` (on synthetic data too: ${found.synthetic.join('; ')})` : ''}${describeUnseenRuns(found.unseenRuns)}`,
      next: `recreate ${names.join(', ')} as the saved session had ${names.length === 1 ? 'it' : 'them'} before code cell ${run.expected.cell} (its saved outputs show what ${names.length === 1 ? 'it' : 'they'} held; a hand edit, recorded in instance.json), or drop the draft`,
      names,
      ...observed,
    };
  }

  return undefined;
}

/** What the run did instead: no crash, a dead kernel, another exception. */
function triageOutcome(run: RunEvidence, found: ReproductionFindings, ctx: TriageContext): DraftTriage {
  const { obs, said, observed } = ctx;
  if (run.outcome === 'no-crash') {
    return {
      cause: 'no-crash',
      detail: `ran to the end without the expected ${run.expected.ename}${found.synthetic.length > 0 ? ` — on synthetic data (${found.synthetic.join('; ')}), which lacks what made the crash: ${describeDerivationGap(run.expected, found.derived ?? [])}` : ''}${describeUnseenRuns(found.unseenRuns)}`,
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
  // input(): the cell waits for someone to type, which no benchmark run has (the kernel answers that its front end
  // takes no input). What the saved session met came from what its user typed, and the saved crash may quote it.
  if (obs && obs.ename.split('.').pop() === 'StdinNotImplementedError') {
    const typed =
      /^(?:could not convert string to (?:float|int)|invalid literal for int\(\) with base \d+): ('[^'\n]*'|"[^"\n]*")$/.exec(
        run.expected.evalue.trim(),
      );
    return {
      cause: 'different-crash',
      detail: `code cell ${obs.cell} asks for typed input (input()), and a benchmark run has no one to type: ${said}; the saved ${run.expected.ename} came from what the notebook's user typed${typed ? ` (its message quotes it: ${typed[1]})` : ''}`,
      next: `put what the user typed in place of the input() call in code cell ${obs.cell} of reproduced.ipynb${typed ? ` (${typed[1]})` : ''} (a hand edit, recorded in instance.json), then: junobench verify; or drop the draft`,
      ...observed,
    };
  }
  const sameKind = obs && obs.ename.split('.').pop() === run.expected.ename && obs.cell === run.expected.cell;
  // Two runs or more just before the crash that no cell holds, and a message that shares little with the saved one
  // (a newer wording keeps most of its words: `[int]` for `[int64]`).
  const before = found.unseenRuns?.justBefore;
  const rerun =
    before && before.to > before.from && obs && sharedWords(run.expected.evalue, obs.evalue) < 0.5 ? before : undefined;
  // The replay went past the cell that crashed, on data that was given, not derived.
  const passed = !!obs && obs.cell > run.expected.cell && found.synthetic.length === 0;
  // A cell before the crash that ran without error in the saved session, on data that was given, raised here.
  const ranThen =
    !!obs &&
    obs.cell < run.expected.cell &&
    found.synthetic.length === 0 &&
    (found.ranInSession ?? []).includes(obs.cell);
  // The same cell met an object of the same type as the saved run did, and raised another exception: the library
  // answers otherwise (`'DatetimeIndex' object has no attribute 'to_timestamp'` then, `unsupported Type
  // DatetimeIndex` now).
  const sameType =
    obs && obs.cell === run.expected.cell && !sameKind
      ? [...codeNamesIn(run.expected.evalue)].filter((n) => /^[A-Z]/.test(n) && codeNamesIn(obs.evalue).has(n))
      : [];
  if (sameType.length > 0) {
    return {
      cause: 'different-crash',
      detail: `${said} instead of ${run.expected.ename}: ${run.expected.evalue.split('\n')[0]!.slice(0, 120)} — the replay met a ${sameType.join(', ')} in code cell ${run.expected.cell} as the saved run did, and the library answered with another exception: another version of it (this runtime's is likely newer than the notebook's)${describeUnseenRuns(found.unseenRuns)}`,
      next: `run it with the library versions the notebook ran with (its saved outputs or imports may name them), or drop the draft`,
      ...observed,
    };
  }
  if (sameKind && rerun) {
    // Runs just before the crash that no cell holds are, most often, the crashing cell run again and again on a
    // state it changed each time (`data = data.toarray()`): the objects it crashed on are not a fresh replay's.
    return {
      cause: 'different-crash',
      detail: `${said} instead of ${run.expected.ename}: ${run.expected.evalue.split('\n')[0]!.slice(0, 120)} — the same exception in the same cell, with another message; the saved session ran ${rerun.to - rerun.from + 1} cell${rerun.to === rerun.from ? '' : 's'} just before the crash that the notebook no longer holds (In [${rerun.from}]${rerun.to > rerun.from ? `–In [${rerun.to}]` : ''}), most likely the crashing cell itself run again on a state it had changed, so the objects it crashed on differ from a replay's${found.synthetic.length > 0 ? ` (its data is synthetic too: ${found.synthetic.join('; ')})` : ''}`,
      next: `replay code cell ${run.expected.cell} as often as the saved session ran it (a repeated index in execution.cells in instance.json), then: junobench verify; or drop the draft`,
      ...observed,
    };
  }
  return {
    cause: 'different-crash',
    detail: `${said ?? 'another outcome'} instead of ${run.expected.ename} in code cell ${run.expected.cell}${sameKind ? ' (the same exception in the same cell, with another message: other data, or another version of the library that words it differently)' : ''}${found.synthetic.length > 0 ? ` — on synthetic data (${found.synthetic.join('; ')})${obs && obs.cell < run.expected.cell ? `, which stopped an earlier cell: ${describeEarlierStop(obs)}` : `, which lacks what made the crash: ${describeDerivationGap(run.expected, found.derived ?? [])}`}` : ''}${ranThen ? `; code cell ${obs!.cell} ran without error in the saved session, so what it met here differs from what it met then: another version of a library (this runtime's may be newer than the notebook's) or state from runs the notebook no longer holds` : ''}${passed ? `; code cell ${run.expected.cell}, where the saved run crashed, ran without that error on the data given, so what it met differs from the saved run's: another version of the data (the saved message: ${run.expected.evalue.split('\n')[0]!.slice(0, 100)}), or of a library` : ''}${describeUnseenRuns(found.unseenRuns)}`,
    next:
      found.synthetic.length > 0
        ? 'the derived data lacks what the crash needs: give the real data with --data, or edit the synthetic files'
        : ranThen
          ? `compare code cell ${obs!.cell}'s saved output with the replay's: run it with the library versions the notebook ran with, or edit the cell to the current API (a hand edit, recorded in instance.json)`
          : passed
            ? `give the data the saved run read (the version of the file it had, or what it downloaded then) with --data, or run it with the library versions it ran with`
            : 'compare the run with the saved outputs: the code or the library versions may differ',
    ...observed,
  };
}

/**
 * Pure: the download module the run missed, when every missing module the cells up to the crash use only fetches
 * data (kagglehub, gdown…): the draft then needs the data, which the sandbox could not download anyway.
 */
function missingDownloader(run: RunEvidence, found: ReproductionFindings): string | undefined {
  const obs = run.observed;
  const missingImport =
    run.outcome === 'skipped-env' ||
    (obs && /ModuleNotFoundError|ImportError/.test(obs.ename) && run.expected.ename !== obs.ename);
  if (!missingImport) return undefined;
  const named = obs ? /No module named '([^'.]+)/.exec(obs.evalue)?.[1] : undefined;
  const used = found.missingModules.filter((m) => m.usedBeforeCrash || m.module === named).map((m) => m.module);
  const modules = used.length > 0 ? used : named ? [named] : [];
  if (modules.length === 0 || !modules.every((m) => DOWNLOADER_MODULES.has(m.split('.')[0]!))) return undefined;
  return modules.join(', ');
}

/**
 * Pure: what a derivation lacked that the saved crash needed, as far as its message tells: values it quotes that no
 * derived file holds, missing values of a kind it names, numbers that come from the data's size.
 */
export function describeDerivationGap(expected: { ename: string; evalue: string }, derived: readonly string[]): string {
  const text = derived.join('\n');
  const code = codeNamesIn(expected.evalue);
  const quoted = [...expected.evalue.matchAll(/'([^'\n]{1,60})'|"([^"\n]{1,60})"/g)]
    .map((m) => m[1] ?? m[2]!)
    .filter((q) => !/^(?:float|int|str|object|bool|NoneType|NAType|list|dict|tuple)$/.test(q) && !code.has(q));
  const absent = [...new Set(quoted.filter((q) => !text.includes(q)))];
  const out: string[] = [];
  if (code.size > 0)
    out.push(
      `the message names ${[...code].map((q) => JSON.stringify(q)).join(', ')}, a type, attribute or name of Python code, not a value of the data: the crash depends on the types the real data gave (a column's dtype, an index's kind), on earlier state, or on the library's version`,
    );
  if (absent.length > 0)
    out.push(
      `the message quotes ${absent.map((q) => JSON.stringify(q)).join(', ')}, which no derived file holds (a value or a column of the real data the code never shows)`,
    );
  if (/NAType|<NA>|\bpd\.NA\b/.test(expected.evalue))
    out.push("pandas' nullable missing values (pd.NA), which a derived CSV does not make");
  else if (/\bNaN\b|\binf(?:inity)?\b/i.test(expected.evalue) && !/missing values/.test(text))
    out.push('missing or infinite values, which the derivation did not put in');
  if (/\(\d+,|\[\d+,|shape|size \d+|\d+ elements|\d+ features|length \d+/i.test(expected.evalue))
    out.push("the real data's shape (the message's sizes come from it)");
  return out.length > 0
    ? out.join('; ')
    : "the message names nothing the derivation can take from the code: the crash depends on the real data's values";
}

/**
 * Pure: the words of a message that name code, not data, by the shapes Python and the libraries word them in:
 * `'DatetimeIndex' object has no attribute 'to_timestamp'`, `name 'x' is not defined`, `unexpected keyword
 * argument 'y'`, `module 'm' has no attribute 'f'`, `'Series' object is not callable`.
 */
export function codeNamesIn(evalue: string): Set<string> {
  const out = new Set<string>();
  const shapes = [
    /'([\w.]+)' object has no attribute '(\w+)'/g,
    /module '([\w.]+)' has no attribute '(\w+)'/g,
    /(?:global )?name '(\w+)' is not defined/g,
    /local variable '(\w+)' referenced/g,
    /cannot access local variable '(\w+)'/g,
    /unexpected keyword argument '(\w+)'/g,
    /cannot import name '(\w+)'/g,
    /'([\w.]+)' object is not (?:callable|subscriptable|iterable|an iterator)/g,
    /unsupported operand type\(s\) for [^:]+: '([\w.]+)' and '([\w.]+)'/g,
    /unsupported [Tt]ype:? ([A-Z]\w+)/g,
  ];
  for (const re of shapes) for (const m of evalue.matchAll(re)) for (const g of m.slice(1)) if (g) out.add(g);
  return out;
}

function describeUnseenRuns(u: ReproductionFindings['unseenRuns']): string {
  if (!u || u.count === 0) return '';
  return `; the saved session also ran ${u.count} cell${u.count === 1 ? '' : 's'} before the crash that the notebook no longer holds (In [${u.from}]${u.to > u.from ? `–In [${u.to}]` : ''}${u.count > u.to - u.from + 1 ? ' and more' : ''}: deleted, or re-run later), whose state the replay cannot have`;
}

/**
 * Pure: the runs of a saved session before a crash (its execution count) that no cell holds: each cell keeps only
 * its last count, so a count below the crash's that no cell has was a run since deleted or re-run. The longest such
 * stretch, how many there are, and the stretch that ends just before the crash, when one does.
 */
export function findUnseenRuns(
  counts: readonly (number | null)[],
  crashCount: number | null,
): ReproductionFindings['unseenRuns'] {
  if (crashCount === null) return undefined;
  const held = new Set(counts.filter((c): c is number => c !== null));
  let count = 0;
  let best: [number, number] | undefined;
  let start = -1;
  for (let n = 1; n < crashCount; n++) {
    if (held.has(n)) {
      start = -1;
      continue;
    }
    count++;
    if (start < 0) start = n;
    if (!best || n - start > best[1] - best[0]) best = [start, n];
  }
  if (!best) return undefined;
  // `start` is still the beginning of the stretch that reaches the crash, when the last count before it is unseen.
  const justBefore = start > 0 && !held.has(crashCount - 1) ? { from: start, to: crashCount - 1 } : undefined;
  return { count, from: best[0], to: best[1], ...(justBefore ? { justBefore } : {}) };
}

function describeEarlierStop(obs: { ename: string; evalue: string; cell: number }): string {
  return `code cell ${obs.cell} expected something of the data the derivation did not know (${obs.ename}: ${firstLine(obs.evalue).slice(0, 120)})`;
}

/** Pure: the share of the saved message's words that the observed one holds too. */
function sharedWords(saved: string, seen: string): number {
  const words = (t: string) => new Set(t.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []);
  const a = words(saved);
  const b = words(seen);
  return a.size === 0 ? 1 : [...a].filter((w) => b.has(w)).length / a.size;
}

function sameCrash(run: RunEvidence): boolean {
  const o = run.observed;
  return !!o && o.ename.split('.').pop() === run.expected.ename && o.cell === run.expected.cell;
}

/** The message's first line that says something: a message may open with blank lines or a rule of asterisks (NLTK's). */
function firstLine(s: string): string {
  const l =
    s
      .split('\n')
      .find((x) => /[A-Za-z0-9]/.test(x))
      ?.trim() ?? s.split('\n')[0]!;
  return l.length > 200 ? `${l.slice(0, 197)}…` : l;
}

function describeModule(m: {
  module: string;
  installed?: string;
  debian?: string;
  pip?: string;
  profiles: string[];
}): string {
  if (m.installed) return `${m.module} (a version of ${m.installed} that has it)`;
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
    derived: instance.data?.synthetic?.derived ?? [],
    missingModules: (t?.modules ?? []).map((m) => ({ ...m, profiles: m.profiles ?? [], platform: false })),
    gpu: [],
    unbound: (t?.names ?? []).map((name) => ({ name, usedIn: -1, definedIn: [] })),
  };
}
