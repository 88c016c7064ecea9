import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  formatJson,
  listInstanceIds,
  readInstance,
  readInstanceTree,
  sha256,
  validateInstanceId,
  validateOrThrow,
  type Instance,
  type InstanceVerification,
  type LockedData,
  type ProgressListener,
  type SourceRecord,
  type SuggestedLabels,
  type DraftTriage,
} from '@junobench/core';
import {
  assertNoNulCells,
  listCodeCells,
  mineImports,
  mineNotebookCrashes,
  parseNotebook,
  planDraftFix,
  type MinedCrash,
  type Notebook,
} from '@junobench/notebook';
import {
  chooseCrash,
  hasNoSavedRun,
  idPrefixOfLibrary,
  instanceSourceOf,
  isInterruption,
  nextInstanceId,
  planExpectedCrash,
  parseNotebookLanguages,
  planReproducedNotebook,
  planRequires,
  planSameCode,
  type DataInputs,
  type ReproducedPlan,
} from './add-instance-plan.js';
import { leaveOutIndependentFailures } from './add-independent-failures.js';
import { standInNltkData } from './add-nltk-data.js';
import {
  chooseRecordedCrash,
  collectedSources,
  describeDraftInputs,
  matchNewerWording,
  shimRemovedApis,
  materializeDraft,
  planDraftReproduction,
  recordDownloads,
  recoverCrashMessage,
  suggestFromReplay,
  triageDraftRun,
  type DraftReproduction,
  type MaterializedDraft,
  type ReproduceOptions,
} from './add-reproduction.js';
import type { RecordedCrash } from '@junobench/reproduce';
import type { SuggestInput } from '@junobench/suggest';

export interface AddInstanceOptions {
  /** A .ipynb file, or a source record folder written by `junobench collect`. */
  input: string;
  instancesDir: string;
  /** raw/sources.lock.json (default: beside the instances folder). */
  lockFile?: string;
  /** raw/deprecated.json (default: beside the instances folder). */
  deprecatedFile?: string;
  /** Where collected datasets are cached (default `.junobench-cache`). */
  cacheDir: string;
  id?: string;
  /** Which saved error output, 1-based, when there are several. */
  crash?: number;
  /**
   * With a source folder: the same notebook saved with its outputs (e.g. downloaded from its page on kaggle.com),
   * used as original.ipynb — `kaggle kernels pull` gives the source without outputs. Its code must be the collected
   * one's.
   */
  notebook?: string;
  /** Runs the draft's reproduced notebook; undefined = --no-verify. */
  verify?: (draftDir: string) => Promise<InstanceVerification>;
  /** Plan and report without writing anything. */
  dryRun?: boolean;
  onProgress?: ProgressListener;
  /** Check the order, the packages and the inputs, put the inputs into data/, and triage (README, "Reproducing real crashes"). */
  reproduce?: ReproduceOptions;
  /** The crash a pool record names (`add --pool`): chosen among the saved errors, or located by its traceback. */
  recorded?: RecordedCrash;
}

export interface AddInstancePlan {
  id: string;
  instance: Instance;
  original: Buffer;
  reproduced: ReproducedPlan;
  crashes: MinedCrash[];
  chosen: number;
  /** Source record folder, when the input is one. */
  record?: { dir: string; value: SourceRecord };
  /** Datasets to copy into data/ (from the cache), by mount. */
  data: { mount: string; treeSha256: string }[];
  warnings: string[];
  reproduction?: DraftReproduction;
  /** What the label suggestions read (the saved crash and its notebook), for refining them with the replay's evidence. */
  suggestInput: SuggestInput;
  /** checks.py drafted from the crash cell (planDraftChecks), when it binds anything. */
  checks?: string;
}

export interface AddInstanceResult {
  plan: AddInstancePlan;
  /** Where the draft was written (absent for a dry run). */
  dir?: string;
  verification?: InstanceVerification;
  /** Whether the crash reproduces as mined (undefined without verification). */
  reproduces?: boolean;
  /** What happened instead, when it does not. */
  instead?: string;
  lockUpdated: boolean;
  data?: LockedData;
  /** What the reproduction machinery put into data/ and, for a crash that did not reproduce, its cause. */
  materialized?: MaterializedDraft;
  triage?: DraftTriage;
}

/**
 * Plan a draft instance from a notebook with a saved crash (pure apart from
 * reading the inputs): the crash mined from the saved error outputs, the
 * reproduced notebook, instance.json with status draft and label
 * suggestions, the id (`<library>_<n>`, skipping existing and deprecated
 * ids), and the datasets data/ will hold.
 */
export async function planAddInstance(options: AddInstanceOptions): Promise<AddInstancePlan> {
  const { NO_SAVED_OUTPUTS_WARNING, SOURCE_RECORD_FILE, datasetCacheDir, readSourceRecord } =
    await import('@junobench/sources');
  const { suggestLabels, notebookCrashInput } = await import('@junobench/suggest');
  const STDLIB = new Set<string>((await import('@junobench/image')).PYTHON_STDLIB_MODULES);
  const input = path.resolve(options.input);
  const st = await stat(input).catch((e: unknown) => {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such notebook or source folder', {
      location: { file: options.input },
      hint: 'give a .ipynb file or a folder written by `junobench collect` (raw/sources/<platform>/<owner>/<name>)',
      cause: e,
    });
  });
  let record: AddInstancePlan['record'];
  let notebookFile: string;
  if (st.isDirectory()) {
    record = { dir: input, value: await readSourceRecord(input) };
    notebookFile = path.join(input, ...record.value.notebook.path.split('/'));
  } else {
    notebookFile = input;
    // A notebook inside a source record folder brings its record along.
    const beside = path.join(path.dirname(input), SOURCE_RECORD_FILE);
    if (
      await stat(beside).then(
        (s) => s.isFile(),
        () => false,
      )
    ) {
      const value = await readSourceRecord(path.dirname(input));
      if (value.notebook.path === path.basename(input)) record = { dir: path.dirname(input), value };
    }
  }
  const original = await readFile(notebookFile).catch((e: unknown) => {
    throw new JunoError('E_INPUT_NOT_FOUND', 'the notebook named by the source record is missing', {
      location: { file: notebookFile },
      cause: e,
    });
  });
  if (record && sha256(original) !== record.value.notebook.sha256) {
    throw new JunoError(
      'E_STATE',
      `${record.value.notebook.path} differs from the notebook recorded in ${SOURCE_RECORD_FILE} (sha256 mismatch)`,
      {
        location: { file: notebookFile },
        hint: `collect it again: junobench collect ${record.value.platform} ${record.value.ref}`,
      },
    );
  }
  // A notebook whose cells lack the ids its format requires is taken as Jupyter opens it: ids added, and so kept.
  const ids = { repaired: 0 };
  let nb: Notebook = parseNotebook(original.toString('utf8'), options.input, { repairIds: ids });
  let originalBytes = ids.repaired > 0 ? Buffer.from(`${JSON.stringify(nb, null, 1)}\n`) : original;
  let originalName = options.input;
  if (options.notebook !== undefined) {
    if (!record) {
      throw new JunoError(
        'E_USAGE',
        '--notebook goes with a source folder from `junobench collect`: give the notebook itself as the input instead',
        {
          location: { file: options.notebook },
          hint: `junobench add ${options.notebook}`,
        },
      );
    }
    originalBytes = await readFile(path.resolve(options.notebook)).catch((e: unknown) => {
      throw new JunoError('E_INPUT_NOT_FOUND', 'no such notebook', { location: { file: options.notebook! }, cause: e });
    });
    const savedIds = { repaired: 0 };
    const saved = parseNotebook(originalBytes.toString('utf8'), options.notebook, { repairIds: savedIds });
    if (savedIds.repaired > 0) originalBytes = Buffer.from(`${JSON.stringify(saved, null, 1)}\n`);
    const differs = planSameCode(nb, saved);
    if (differs !== null) {
      throw new JunoError(
        'E_USAGE',
        `${options.notebook} is not the notebook collected in ${record.value.ref} (${record.value.notebook.path}): ${differs}`,
        {
          location: { file: options.notebook },
          hint:
            record.value.platform === 'kaggle'
              ? `\`kaggle kernels pull\` gives the kernel's latest version: download that version with its outputs from ${record.value.url} (collect again if it changed since). ` +
                `If the crash is only in an older version, add that notebook on its own (junobench add <file.ipynb>) and put its data under the draft's data/`
              : `download the version that was collected, or collect it again (junobench collect ${record.value.platform} ${record.value.ref}) and add with the notebook of that version`,
        },
      );
    }
    nb = saved;
    originalName = options.notebook;
  } else if (record?.value.platform === 'kaggle' && hasNoSavedRun(nb) && !options.recorded) {
    // The Kaggle CLI writes the source Kaggle stores (ApiKernelBlob.source): no outputs, so no error output to mine.
    throw new JunoError(
      'E_INPUT_EMPTY',
      `the notebook collected from Kaggle (${record.value.notebook.path}) has no saved outputs: \`kaggle kernels pull\` returns a notebook's source only, so there is no error output to mine`,
      {
        location: { file: notebookFile },
        hint:
          `download the notebook with its outputs from ${record.value.url} (the version that crashed), then: ` +
          `junobench add ${options.input} --notebook <downloaded.ipynb> (for a run on Kaggle that failed, \`kaggle kernels output ${record.value.ref}\` gives its log)`,
      },
    );
  }
  assertNoNulCells(nb, originalName);
  // Its cells would run in a Python kernel: an R or Julia notebook's draft can only fail there.
  const other = parseNotebookLanguages(nb).filter((l) => l.toLowerCase() !== 'python');
  if (other.length > 0) {
    throw new JunoError(
      'E_USAGE',
      `the notebook's kernel language is ${other.join(' / ')}, not Python: only Python notebooks can become JunoBench instances`,
      {
        location: { file: options.input, field: 'metadata.kernelspec.language' },
        hint: 'if its code is Python and the metadata is wrong, set metadata.kernelspec.language and metadata.language_info.name to "python"',
      },
    );
  }
  const crashes = mineNotebookCrashes(nb);
  const chosen = options.recorded
    ? await chooseRecordedCrash(nb, crashes, options.recorded, originalName)
    : { ...chooseCrash(crashes, options.crash, originalName, nb), warning: undefined };
  const index = chosen.index;
  // Past this point the notebook has saved outputs: collect's warning that it came without any is settled.
  const warnings: string[] = (record?.value.warnings ?? []).filter((w) => !w.startsWith(NO_SAVED_OUTPUTS_WARNING));
  if (chosen.warning) warnings.push(chosen.warning);
  const recovered = await recoverCrashMessage(chosen.crash);
  const crash = recovered.crash;
  if (recovered.warning) warnings.push(recovered.warning);

  const sources = collectedSources(record);
  const inputs: DataInputs = {
    mounts: sources.map((d) => d.mount),
    topLevel: new Map(
      sources.filter((d) => d.files).map((d) => [d.mount, [...new Set(d.files!.map((f) => f.path.split('/')[0]!))]]),
    ),
    refs: new Map(
      sources.map((d) => [`${d.kind === 'competition' ? 'competitions' : 'datasets'}/${d.ref}`.toLowerCase(), d.mount]),
    ),
    // Kaggle says which sources a kernel has; a notebook from anywhere else brings no such list.
    complete: record?.value.platform === 'kaggle',
  };
  let reproduced = planReproducedNotebook(nb, crash, inputs);
  let reproduction: DraftReproduction | undefined;
  if (options.reproduce) {
    const collected = sources.flatMap((d) => (d.files ?? []).map((f) => `data/${d.mount}/${f.path}`));
    ({ reproduced, reproduction } = await planDraftReproduction(
      nb,
      crash,
      inputs,
      reproduced,
      collected,
      options.reproduce,
    ));
    warnings.push(...reproduction.warnings);
  }
  // With the reproduction machinery these inputs are rewritten into data/ and derived: warned about once materialized.
  for (const u of reproduction ? [] : reproduced.unresolvedInputs) {
    const only = sources.length === 1 && !sources[0]!.files ? sources[0]! : undefined;
    warnings.push(
      `code cell ${u.cell} of the original reads ${u.path}, which is not ${sources.length === 0 ? 'a collected source (none was collected)' : `one of the collected sources (${sources.map((d) => `/kaggle/input/${d.mount}`).join(', ')})`}: ` +
        `left as it is, so the draft lacks that input — put it under the draft's data/ and point the path there${only ? ` (if it is a file of ${only.kind} ${only.ref}, collect with --with-data and add again: its files tell)` : ''}`,
    );
  }
  for (const ci of reproduced.droppedErrors) {
    const other = crashes.find((c) => c.codeCell === ci);
    warnings.push(
      other && isInterruption(other)
        ? `code cell ${ci} of the original was stopped by the user (KeyboardInterrupt) before the chosen crash: left out of reproduced.ipynb ` +
            '(check that nothing it did before it was stopped is needed)'
        : `code cell ${ci} of the original raised its own ${other ? `${other.ename}: ${other.evalue.split('\n')[0]!.slice(0, 80)}` : 'error'} before the chosen crash: ` +
            'left out of reproduced.ipynb so that the run reaches the chosen crash (check that nothing it did before failing is needed)',
    );
  }
  for (const r of reproduced.rerunAfter) {
    warnings.push(
      r.replayedAt !== null
        ? `code cell ${r.cell} of the original was re-run after the crash (In [${r.savedCount}], the crash is In [${crash.executionCount}]): its earlier run is ` +
            `replayed where the saved counts leave a gap (In [${r.replayedAt}]), with the source saved from its later run (check it was not edited after the crash)`
        : `code cell ${r.cell} of the original was run after the crash (In [${r.savedCount}]) and no free count before the crash's (In [${crash.executionCount}]) ` +
            'fits an earlier run of it: left out of reproduced.ipynb (if the crash needs it, add it by hand)',
    );
  }
  const requires = planRequires(mineImports(reproduced.notebook), crash, STDLIB);

  const suggestInput = notebookCrashInput(nb, crash);
  const suggestions = suggestLabels(suggestInput);
  const suggestedLabels: SuggestedLabels = {
    library: suggestions.library,
    crashType: suggestions.crashType,
    rootCause: suggestions.rootCause,
    pipelineStage: suggestions.pipelineStage,
  };

  const data: AddInstancePlan['data'] = [];
  for (const d of record?.value.datasets ?? []) {
    if (d.kind === 'kernel-output') continue;
    const cached =
      d.treeSha256 &&
      (await stat(datasetCacheDir(options.cacheDir, d.treeSha256)).then(
        () => true,
        () => false,
      ));
    if (cached) data.push({ mount: d.mount, treeSha256: d.treeSha256! });
    else
      warnings.push(
        `data/${d.mount}/ is missing: ${d.kind} ${d.ref} was not downloaded (collect with --with-data: junobench collect ${record!.value.platform} ${record!.value.ref} --with-data)`,
      );
  }
  // Judged on the rewrites, not on the reproduced cells: those no longer hold /kaggle/input once rewritten to data/.
  const toFill = [
    ...new Set(
      reproduced.rewrites.map((r) => r.split(' → ')[1]!).filter((to) => to === 'data' || to.startsWith('data/')),
    ),
  ];
  if (!record && toFill.length > 0 && !reproduction) {
    warnings.push(
      `the notebook reads Kaggle input files, but no datasets come with a plain notebook: put them in the draft's ${toFill.map((f) => `${f}/`).join(', ')} ` +
        '(or collect it with `junobench collect kaggle <owner>/<kernel> --with-data` and add the source folder)',
    );
  }

  if (reproduction && options.dryRun) {
    // What materializing will do, as far as the plan knows (a download may still fail and fall back to derivation).
    const planned = reproduction.inputs.needs
      .filter((n) => !n.present && !n.url)
      .map((n) => ({ need: n, status: n.derive ? ('synthetic' as const) : ('missing' as const) }));
    warnings.push(...(await describeDraftInputs(planned, reproduced, sources, !!record)));
  }
  const id = await chooseId(options, idPrefixOfLibrary(suggestions.library?.value));
  const instance: Instance = {
    id,
    status: 'draft',
    source: record ? instanceSourceOf(record.value) : { platform: 'local', datasets: [] },
    crash: planExpectedCrash(crash, reproduced.crashCell, inputs),
    execution: {
      order: reproduced.order,
      ...(reproduction?.executionCells ? { cells: reproduction.executionCells } : {}),
    },
    requires,
    suggestedLabels,
  };
  validateOrThrow<Instance>('instance', instance, { file: path.join(options.instancesDir, id, 'instance.json') });
  const { planDraftChecks } = await import('@junobench/checks');
  const checks = planDraftChecks(id, listCodeCells(reproduced.notebook)[reproduced.crashCell]?.source ?? '');
  return {
    id,
    instance,
    ...(checks ? { checks } : {}),
    original: originalBytes,
    reproduced,
    crashes,
    chosen: index,
    ...(record ? { record } : {}),
    data,
    warnings,
    ...(reproduction ? { reproduction } : {}),
    suggestInput,
  };
}

async function chooseId(options: AddInstanceOptions, prefix: string): Promise<string> {
  const instancesDir = path.resolve(options.instancesDir);
  const existing = await listInstanceIds(instancesDir).catch(() => [] as string[]);
  const deprecated = await readDeprecatedIds(
    options.deprecatedFile ?? path.join(path.dirname(instancesDir), 'deprecated.json'),
  );
  if (options.id !== undefined) {
    const id = validateInstanceId(options.id);
    if (
      existing.includes(id) ||
      (await stat(path.join(instancesDir, id)).then(
        () => true,
        () => false,
      ))
    ) {
      throw new JunoError('E_USAGE', `an instance named ${id} already exists in ${options.instancesDir}`, {
        hint: 'choose another --id, or leave --id out to get the next free <library>_<n>',
      });
    }
    if (deprecated.has(id)) {
      throw new JunoError('E_USAGE', `${id} is a deprecated instance id: ids are never reused`, {
        hint: 'choose another --id, or leave --id out to get the next free <library>_<n>',
      });
    }
    return id;
  }
  return nextInstanceId(prefix, [...existing, ...deprecated]);
}

/** The ids in raw/deprecated.json (`{ "instances": [ { "id", … } ] }`); none when the file is absent. */
export async function readDeprecatedIds(file: string): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return new Set();
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new JunoError('E_INPUT_FORMAT', `not valid JSON: ${(e as Error).message}`, { location: { file }, cause: e });
  }
  const list = (value as { instances?: unknown })?.instances;
  if (!Array.isArray(list) || list.some((x) => typeof (x as { id?: unknown })?.id !== 'string')) {
    throw new JunoError('E_INPUT_FORMAT', 'expected { "instances": [ { "id": "…", … } ] }', {
      location: { file, field: 'instances' },
    });
  }
  return new Set(list.map((x) => (x as { id: string }).id));
}

/**
 * `junobench add`: plan the draft, write it into a staging folder next to the
 * instances (original.ipynb as fetched, reproduced.ipynb, instance.json,
 * data/ from the cached datasets), run its reproduced notebook unless
 * verification is off, then move it into place in one rename and record its
 * sources in the lock. Any failure before that leaves the instances folder
 * and the lock as they were. A crash that does not reproduce still gives the
 * draft (it is a draft: the maintainer fixes it), with what happened instead.
 */
export async function addInstance(options: AddInstanceOptions): Promise<AddInstanceResult> {
  const { assembleFullData, planLockEntry, readSourcesLock, recordPathProblem, withLockEntry, writeSourcesLock } =
    await import('@junobench/sources');
  const progress = options.onProgress;
  progress?.({ task: 'add', done: 0, message: 'planning the draft' });
  const plan = await planAddInstance(options);
  if (options.dryRun) return { plan, lockUpdated: false };

  const instancesDir = path.resolve(options.instancesDir);
  const lockFile = options.lockFile ?? path.join(path.dirname(instancesDir), 'sources.lock.json');
  // Read (and check) the lock before writing anything: a broken lock must not leave a half-added instance.
  const lock = plan.record ? await readSourcesLock(lockFile) : undefined;
  if (lock?.instances[plan.id]) {
    throw new JunoError('E_STATE', `${path.basename(lockFile)} already has an entry for ${plan.id}`, {
      location: { file: lockFile },
      hint: 'ids are never reused: remove the stale entry, or give another --id',
    });
  }
  // The lock names the record folder relative to its own folder, and never outside it (it is read back as a path).
  const recordRel = plan.record ? path.relative(path.dirname(lockFile), plan.record.dir).split(path.sep).join('/') : '';
  if (plan.record && recordPathProblem(recordRel)) {
    throw new JunoError(
      'E_USAGE',
      `the source folder ${plan.record.dir} is outside ${path.dirname(lockFile)}, the folder of ${path.basename(lockFile)} that records where each instance came from`,
      {
        location: { file: plan.record.dir },
        hint: `collect it there (\`junobench collect … --out ${path.join(path.dirname(lockFile), 'sources')}\`), or move the folder under ${path.dirname(lockFile)}`,
      },
    );
  }
  // The same notebook's same crash added twice would put one case twice in the benchmark.
  if (lock && plan.record) {
    const nbSha = plan.record.value.notebook.sha256;
    for (const [other, entry] of Object.entries(lock.instances)) {
      if (entry?.notebook.sha256 !== nbSha) continue;
      const existing = await readInstance(path.join(instancesDir, other)).catch(() => undefined);
      if (
        existing &&
        existing.crash.ename === plan.instance.crash.ename &&
        existing.crash.evalue === plan.instance.crash.evalue
      ) {
        throw new JunoError(
          'E_USAGE',
          `this crash of ${plan.record.value.ref} (${existing.crash.ename}: ${existing.crash.evalue.split('\n')[0]!.slice(0, 100)}) is already instance ${other}`,
          {
            location: { file: lockFile },
            hint:
              plan.crashes.length > 1
                ? 'choose another of its saved errors with --crash <n>'
                : `nothing to add; to start ${other} again, remove its folder and its entry in ${path.basename(lockFile)}`,
          },
        );
      }
    }
  }
  await mkdir(instancesDir, { recursive: true });
  const staging = path.join(instancesDir, `.add-${plan.id}-${randomBytes(4).toString('hex')}`);
  const final = path.join(instancesDir, plan.id);
  let moved = false;
  try {
    await mkdir(staging);
    await writeFile(path.join(staging, 'original.ipynb'), plan.original);
    await writeFile(path.join(staging, 'reproduced.ipynb'), `${JSON.stringify(plan.reproduced.notebook, null, 1)}\n`);
    let data: LockedData | undefined;
    if (plan.data.length > 0) {
      progress?.({ task: 'add', done: 0, message: 'copying the datasets into data/' });
      const got = await assembleFullData(plan.data, options.cacheDir, { dest: path.join(staging, 'data') });
      data = { sha256: got.sha256, files: got.files, bytes: got.bytes };
    }
    await writeFile(path.join(staging, 'instance.json'), formatJson(plan.instance));
    if (plan.checks) await writeFile(path.join(staging, 'checks.py'), plan.checks);
    let materialized: MaterializedDraft | undefined;
    if (plan.reproduction && options.reproduce) {
      progress?.({ task: 'add', done: 0, message: 'putting the inputs into data/' });
      const described = (resolved: Parameters<typeof describeDraftInputs>[0]) =>
        describeDraftInputs(resolved, plan.reproduced, collectedSources(plan.record), !!plan.record);
      const m = await materializeDraft(staging, plan.instance, plan.reproduction, options.reproduce, described);
      plan.warnings.push(...m.materialized.warnings);
      plan.instance = m.instance;
      materialized = m.materialized;
    }
    // The fixed notebook's starter: the reproduced notebook as the draft ends up (after the inputs were put in place),
    // marked as a draft fix until the maintainer repairs it and deletes the mark.
    const reproducedNow = parseNotebook(
      await readFile(path.join(staging, 'reproduced.ipynb'), 'utf8'),
      'reproduced.ipynb',
    );
    await writeFile(path.join(staging, 'fixed.ipynb'), `${JSON.stringify(planDraftFix(reproducedNow), null, 1)}\n`);
    // The draft must be self-contained: the same link rule as every instance.
    await readInstanceTree(staging);

    let verification: InstanceVerification | undefined;
    let triage: DraftTriage | undefined;
    if (options.verify) {
      progress?.({ task: 'add', done: 0, message: `running ${plan.id}'s reproduced notebook` });
      verification = await options.verify(staging);
      if (plan.reproduction) {
        const reached = await reachTheCrash(staging, plan.instance, verification, options.verify, options.reproduce);
        plan.instance = reached.instance;
        verification = reached.verification;
        if (reached.changed) {
          const nb = parseNotebook(await readFile(path.join(staging, 'reproduced.ipynb'), 'utf8'), 'reproduced.ipynb');
          await writeFile(path.join(staging, 'fixed.ipynb'), `${JSON.stringify(planDraftFix(nb), null, 1)}\n`);
        }
        const again = await matchNewerWording(
          staging,
          plan.instance,
          verification,
          options.verify,
          plan.reproduction.savedTraceback,
        );
        plan.instance = again.instance;
        verification = again.verification;
        const t = await triageDraftRun(staging, plan.instance, plan.reproduction, materialized, verification);
        plan.instance = t.instance;
        triage = t.triage;
        if (verification.reproduced.outcome === 'crash-reproduced' && options.reproduce) {
          progress?.({ task: 'add', done: 0, message: 'reading the replay for the label suggestions' });
          plan.instance = await suggestFromReplay(
            staging,
            plan.instance,
            plan.suggestInput,
            verification,
            options.reproduce,
          );
        }
      }
    }

    if (
      await stat(final).then(
        () => true,
        () => false,
      )
    ) {
      throw new JunoError('E_USAGE', `an instance named ${plan.id} appeared in ${options.instancesDir} meanwhile`, {
        hint: 'run the command again',
      });
    }
    await rename(staging, final);
    moved = true;
    let lockUpdated = false;
    if (plan.record && lock) {
      await writeSourcesLock(lockFile, withLockEntry(lock, plan.id, planLockEntry(plan.record.value, recordRel, data)));
      lockUpdated = true;
    }
    if (materialized && materialized.downloads.length > 0) {
      await recordDownloads(lockFile, plan.id, materialized.downloads);
      lockUpdated = true;
    }
    const reproduces = verification ? verification.reproduced.outcome === 'crash-reproduced' : undefined;
    return {
      plan,
      dir: final,
      ...(verification ? { verification, reproduces } : {}),
      ...(verification && !reproduces ? { instead: describeReproduced(verification) } : {}),
      lockUpdated,
      ...(data ? { data } : {}),
      ...(materialized ? { materialized } : {}),
      ...(triage ? { triage } : {}),
    };
  } catch (e) {
    if (moved) await rm(final, { recursive: true, force: true });
    throw e;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function describeReproduced(v: InstanceVerification): string {
  const r = v.reproduced;
  const seen = r.observed
    ? `${r.observed.ename}: ${r.observed.evalue.split('\n')[0]} (code cell ${r.observed.cell})`
    : undefined;
  return [r.outcome, seen, r.reason].filter(Boolean).join(' — ');
}

/**
 * After a draft's first run: shims, NLTK's stand-ins, then the failing cells the crash does not need, in turn — what a
 * cell left out kept from running may need a shim or a stand-in of its own. At most three passes.
 */
async function reachTheCrash(
  staging: string,
  instance: Instance,
  verification: InstanceVerification,
  verify: (dir: string) => Promise<InstanceVerification>,
  reproduce: ReproduceOptions | undefined,
): Promise<{ instance: Instance; verification: InstanceVerification; changed: boolean }> {
  let changed = false;
  for (let pass = 0; pass < 3; pass++) {
    const shimmed = await shimRemovedApis(staging, instance, verification, verify);
    const stood = reproduce
      ? await standInNltkData(staging, shimmed.instance, shimmed.verification, verify, reproduce)
      : { ...shimmed, changed: false };
    const independent = reproduce
      ? await leaveOutIndependentFailures(staging, stood.instance, stood.verification, verify, reproduce)
      : { ...stood, changed: false };
    ({ instance, verification } = independent);
    changed ||= shimmed.changed || stood.changed || independent.changed;
    if (!independent.changed) break;
  }
  return { instance, verification, changed };
}
