import {
  CRASH_TYPES,
  PIPELINE_STAGES,
  ROOT_CAUSES,
  compareCodePoints,
  type AgreementReport,
  type BenchmarkEntry,
  type ReleaseManifest,
} from '@junobench/core';
import type { ResolvedMetadata } from './release-types.js';

export interface DatasetCardInput {
  manifest: ReleaseManifest;
  metadata: ResolvedMetadata;
  /** benchmark.json's entries of the released instances (sources, datasets, licences). */
  entries: readonly BenchmarkEntry[];
  agreement: AgreementReport | null;
  /** The agreement was recomputed over the released instances' annotations (no deprecated one among them). */
  agreementRecomputed?: boolean;
  csvColumns: readonly string[];
  /** Paths of the archive (for the structure section: is there a report/?). */
  paths: readonly string[];
  /** Released instances whose data/ was subsampled (instance.json's data.subsample). */
  subsampled?: ReadonlySet<string>;
}

/** Where the card and the release notes have the reader clone the toolchain: beside the downloaded archive. */
export const TOOLCHAIN_FOLDER = 'junobench-toolchain';

/**
 * How a downloader gets the toolchain that made a release: its repository
 * (resolved by prepare from raw/release.json, the checkout's remote or
 * --github) checked out at the commit the manifest records. The dataset's
 * version (the release tag) is not the toolchain's: the clone names the
 * toolchain's own commit and version. `problem` says what is missing when the
 * card cannot name the repository or the commit (publish refuses such a card).
 */
export function planToolchainClone(
  m: Pick<ReleaseManifest, 'version' | 'toolchain'>,
  repository: string | undefined,
): { sentence: string; commands: string[]; problem?: string } {
  const t = m.toolchain;
  const which = `junobench toolchain ${t.version}${t.commit ? `, commit ${t.commit.slice(0, 12)}` : ''}`;
  const sentence =
    `This is version ${m.version} of the dataset; it was prepared by the ${which} (the toolchain has its own versions: ` +
    `the release tag \`v${m.version}\` names the dataset's).`;
  const problems: string[] = [];
  if (!repository) problems.push("the toolchain's repository is not known");
  if (!t.commit) problems.push("the toolchain's commit was not recorded (it was not a git checkout)");
  if (problems.length > 0)
    return {
      sentence: `${sentence} This release does not record where to clone it (${problems.join('; ')}): use the toolchain ${t.version}.`,
      commands: [],
      problem: problems.join('; '),
    };
  return {
    sentence,
    commands: [
      `git clone ${repository} ${TOOLCHAIN_FOLDER} && git -C ${TOOLCHAIN_FOLDER} checkout --detach ${t.commit} && npm ci --prefix ${TOOLCHAIN_FOLDER}`,
    ],
  };
}

/**
 * Where the instances' notebooks come from, in words: "Kaggle" only when every
 * one is a Kaggle notebook, else each platform with its count.
 */
export function describeNotebookSources(platforms: readonly string[]): string {
  const names: Record<string, string> = {
    kaggle: 'Kaggle',
    github: 'GitHub',
    local: 'local notebooks',
    unknown: 'unknown sources',
  };
  const counts = new Map<string, number>();
  for (const p of platforms) counts.set(p, (counts.get(p) ?? 0) + 1);
  if (counts.size === 0) return 'notebooks';
  if (counts.size === 1) {
    const [only] = [...counts.keys()];
    return only === 'kaggle' ? 'Kaggle' : (names[only!] ?? only!);
  }
  const parts = [...counts]
    .sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]))
    .map(([p, n]) => `${names[p] ?? p} (${n})`);
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

const ROOT_CAUSE_MEANING: Record<string, string> = {
  'API misuse': 'a library API called in a way it does not support (wrong argument, type, order or version)',
  'data confusion': 'the data is not what the code assumes (shape, dtype, columns, missing values)',
  'NB specific': 'caused by the notebook itself: out-of-order execution, a cell never run, stale kernel state',
  'implementation error': "a plain programming mistake in the notebook's own code",
  'ML model confusion': 'the model is misunderstood or misconfigured (architecture, inputs, training setup)',
  'library cause': 'a defect or limitation in the library itself',
};

const STAGE_MEANING: Record<string, string> = {
  'data preparation': 'loading, cleaning, transforming and splitting data',
  'data visualization': 'plots and other visual exploration',
  'model construction': 'defining or configuring the model',
  training: 'fitting the model',
  'evaluation/prediction': 'scoring, predicting and reporting results',
};

/**
 * README.md of a release: a dataset card with Hugging Face YAML front matter
 * (license, pretty_name, task_categories, tags, size_categories, configs
 * pointing at benchmark.csv) and the sections a user of the benchmark needs:
 * what it is, how it was built, structure, label definitions, agreement,
 * statistics, how to run every case with the image, licences per instance,
 * deprecated instances, checksums and how to cite.
 */
export function renderDatasetCard(input: DatasetCardInput): string {
  const { manifest: m, metadata: meta } = input;
  const byId = new Map(input.entries.map((e) => [e.id, e]));
  const n = m.instances.length;
  const name = m.name;
  const archive = `${m.tag.replace(/^v/, 'junobench-')}.tar.gz`;
  const top = archive.replace(/\.tar\.gz$/, '');
  const out: string[] = [];

  out.push(
    '---',
    `license: other`,
    `license_name: ${yamlString(`${meta.license} (annotations), per-instance licences (notebooks and data)`)}`,
    `license_link: ${yamlString('#licences')}`,
    `pretty_name: ${yamlString(meta.prettyName)}`,
    'language:',
    '  - en',
    'task_categories:',
    '  - text-classification',
    '  - text-generation',
    'tags:',
    ...meta.keywords.map((k) => `  - ${yamlString(k)}`),
    'size_categories:',
    `  - ${sizeCategory(n)}`,
    'configs:',
    '  - config_name: default',
    '    data_files:',
    '      - split: test',
    '        path: benchmark.csv',
    `version: ${yamlString(m.version)}`,
    '---',
    '',
  );

  out.push(`# ${name} ${m.version}`, '', meta.description, '');
  out.push(
    `This release holds **${n} instance${n === 1 ? '' : 's'}**: ${m.totals.verified} verified by executing them` +
      (m.totals.skippedEnv > 0 ? `, ${m.totals.skippedEnv} released as \`skipped-env\` (see "Verification")` : '') +
      (m.deprecated.length > 0 ? `; ${m.deprecated.length} deprecated (left out, ids never reused)` : '') +
      '.',
    '',
  );

  out.push('## How it was built', '');
  out.push(
    'Crashes were collected from public notebooks, filtered to machine-learning and notebook-specific crashes, and resampled per library. ' +
      'For each one, the original notebook was kept as collected, a *reproduced* version was made with minimal edits so that the same crash ' +
      "happens on every run, and a *fixed* version repairs the root cause while keeping the author's intent. Large inputs were subsampled " +
      '(the crash checked to survive), inputs whose licence forbids sharing were replaced by synthetic data.',
    '',
    `Every instance was then executed in fresh Jupyter kernels (${m.verification.runtime} runtime): the reproduced notebook must raise the labelled ` +
      'exception in the labelled cell and the fixed notebook must run through. ' +
      `${annotatorsSentence(input.agreement)} The release was prepared by the JunoBench toolchain ` +
      `${m.toolchain.version}${m.toolchain.commit ? ` (commit ${m.toolchain.commit.slice(0, 12)}${m.toolchain.dirty ? ', with uncommitted changes' : ''})` : ''}` +
      `, dated ${m.createdAt} (SOURCE_DATE_EPOCH ${m.sourceDateEpoch}).`,
    '',
  );

  out.push('## Structure', '', '```', `${top}/`);
  const rows: [string, string][] = [
    ['README.md', 'this card'],
    ['CHANGELOG.md', 'what changed since the previous release'],
    ['manifest.json', 'version, toolchain, image, every instance with its labels, status and files (bytes, sha256)'],
    ['SHA256SUMS', 'checksums of every other file: `sha256sum -c SHA256SUMS`'],
    ['croissant.json', 'MLCommons Croissant 1.0 metadata'],
    ['benchmark.csv', 'one row per instance (the Hugging Face `default` config)'],
    ['benchmark.json', 'the same, as JSON'],
    ['verification.json', 'per instance and notebook: outcome, observed crash, per-cell results, runtime identity'],
    ['labels/', 'annotator agreement (agreement.json/.md) and final labels'],
    ['stats/', 'counts, shares, cross-tables and charts'],
  ];
  if (input.paths.some((p) => p.startsWith('report/')))
    rows.push(['report/', 'browsable HTML report (open report/index.html)']);
  rows.push(['image/', 'the image recipe: rendered Dockerfile, lock file of every package version, the runner']);
  if (input.paths.includes('checks.json'))
    rows.push(['checks.json', "each instance's checks and their mutation test (non-fixes generated, rejected)"]);
  rows.push([
    'instances/<id>/',
    'original.ipynb, reproduced.ipynb, fixed.ipynb, data/, instance.json (final labels), checks.py (what a fix must achieve)',
  ]);
  const w = Math.max(...rows.map((r) => r[0].length));
  for (const [p, what] of rows) out.push(`  ${p.padEnd(w)}  ${what}`);
  out.push('```', '');
  out.push(`Columns of \`benchmark.csv\`: ${input.csvColumns.map((c) => `\`${c}\``).join(', ')}.`, '');

  out.push('## Label definitions', '');
  out.push(
    '- **Library cause**: the library whose use caused the crash (`tensorflow/keras` is one class; `None` = no library, e.g. a NameError from a cell never run).',
  );
  out.push(`- **Crash type**: ${CRASH_TYPES.map((c) => `\`${c}\``).join(', ')}.`);
  out.push('- **Root cause**:');
  for (const r of ROOT_CAUSES) out.push(`  - \`${r}\`: ${ROOT_CAUSE_MEANING[r] ?? ''}`.trimEnd());
  out.push('- **ML pipeline stage**:');
  for (const s of PIPELINE_STAGES) out.push(`  - \`${s}\`: ${STAGE_MEANING[s] ?? ''}`.trimEnd());
  out.push('- **Diagnosis**: a short natural-language explanation of the crash and its fix.', '');

  out.push('## Agreement', '');
  if (m.agreement.dimensions.length === 0) out.push('No agreement figures were recorded.', '');
  else {
    const pairs = input.agreement?.dimensions ?? [];
    out.push(
      `Cohen's kappa between the annotators and Krippendorff's alpha (nominal), per label dimension; the release requires kappa ≥ ${m.agreement.minKappa} in every dimension.`,
      '',
    );
    out.push("| dimension | Cohen's kappa | Krippendorff's alpha | instances compared |", '|---|---|---|---|');
    for (const d of m.agreement.dimensions) {
      const nCompared = pairs.find((p) => p.dimension === d.dimension)?.pairs[0]?.n;
      out.push(`| ${d.dimension} | ${fmt(d.kappa)} | ${fmt(d.alpha)} | ${nCompared ?? ''} |`);
    }
    out.push('');
    const annotated = input.agreement?.instances;
    if (m.deprecated.length > 0 && !input.agreementRecomputed && annotated !== undefined && annotated !== n) {
      // The study's figures, not recomputed: say so rather than let "16 compared" stand beside a release of 15.
      out.push(
        `These are the figures of the annotation of ${annotated} instances; this release holds ${n} (deprecated: ${m.deprecated.map((d) => d.id).join(', ')}), and the figures were not recomputed without them.`,
        '',
      );
    } else if (m.deprecated.length > 0 && input.agreementRecomputed) {
      out.push(
        `Computed over the annotations without the deprecated instance${m.deprecated.length === 1 ? '' : 's'} (${m.deprecated.map((d) => d.id).join(', ')}).`,
        '',
      );
    }
  }

  out.push('## Statistics', '');
  const count = (key: 'library' | 'crashType' | 'rootCause' | 'pipelineStage') => {
    const c = new Map<string, number>();
    for (const i of m.instances) c.set(i.labels[key], (c.get(i.labels[key]) ?? 0) + 1);
    return [...c].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]));
  };
  for (const [title, key] of [
    ['Library cause', 'library'],
    ['Crash type', 'crashType'],
    ['Root cause', 'rootCause'],
    ['Pipeline stage', 'pipelineStage'],
  ] as const) {
    out.push(`| ${title.toLowerCase()} | instances | share |`, '|---|---:|---:|');
    for (const [label, k] of count(key))
      out.push(`| ${cell(label)} | ${k} | ${n > 0 ? `${((100 * k) / n).toFixed(1)}%` : ''} |`);
    out.push('');
  }
  out.push('More tables and charts: `stats/`.', '');

  out.push('## Verification', '');
  out.push('| id | library | crash type | root cause | stage | status |', '|---|---|---|---|---|---|');
  for (const i of m.instances) {
    out.push(
      `| ${cell(i.id)} | ${cell(i.labels.library)} | ${cell(i.labels.crashType)} | ${cell(i.labels.rootCause)} | ${cell(i.labels.pipelineStage)} | ${i.status}${i.reason ? `: ${cell(i.reason)}` : ''} |`,
    );
  }
  out.push('');
  if (m.totals.skippedEnv > 0) {
    out.push(
      '`skipped-env` instances are part of the benchmark but could not be executed where this release was verified (a required module, such as TensorFlow, was not installed there). They are never counted as verified; run them in an image that has the module.',
      '',
    );
  }

  planChecksSection(m, out);

  out.push('## Run every case', '');
  const img = m.image;
  // Without a pushed image, a downloader builds one from image/ under this name: the tag the manifest records
  // (`image build`'s content-hash tag) exists only in the engine of whoever prepared the release.
  const rebuilt = `junobench/benchmark:${m.version}`;
  // From the folder that holds the archive, as the verify commands below are: no `cd` that would leave the reader
  // elsewhere.
  const rebuild = `tar xzf ${archive} && docker build -f ${top}/image/Dockerfile.${img.profile} -t ${rebuilt} ${top}/image`;
  if (img.registry) {
    out.push(
      `The benchmark image is pushed as \`${img.registry.reference}\` (tag \`${img.registry.repository}:${img.registry.tag}\`); \`--runtime docker\` pulls it by that digest.`,
      '',
    );
  } else {
    out.push(
      `${img.tag ? `The benchmark image was built as \`${img.tag}\` (image id \`${img.imageId ?? ''}\`) but not pushed` : 'The benchmark image is not pushed with this release'}: ` +
        `build it from \`image/\` first (\`${rebuild}\`; the base image \`junobench/base:bookworm\` is Debian bookworm made with debootstrap, see the toolchain's tools/setup-engine.sh).`,
      '',
    );
  }
  // The toolchain is not an npm package: a bare `npx junobench` in the reader's folder asks the registry for one (and
  // would run whatever is published under that name). Its checkout beside the archive, run through --prefix.
  const run = `npx --prefix ${TOOLCHAIN_FOLDER} junobench release verify ${archive}`;
  const clone = planToolchainClone(m, meta.toolchainRepository);
  out.push(
    `Check every file and re-execute every instance with one command, \`junobench release verify\` of the JunoBench toolchain (Node 20). ` +
      `The toolchain is not on the npm registry (a bare \`npx junobench\` outside its checkout finds no such package): ` +
      `clone the one that made this release beside the archive, and run it from there. ${clone.sentence}`,
    '',
    '```sh',
    ...clone.commands,
    `${run} --runtime docker${img.registry ? '' : ` --image ${rebuilt}`}   # in the image, sandboxed`,
    `${run} --runtime local   # in local Jupyter kernels instead, in a bubblewrap sandbox (no network, none of your files; no memory or CPU limits)`,
    `${run} --no-run   # checksums, manifest, schemas and Croissant only`,
    '```',
    '',
    `It extracts the archive safely, checks \`SHA256SUMS\` and \`manifest.json\`, validates every file, runs each reproduced notebook (it must crash as labelled) and each fixed one (it must run) in fresh kernels, and compares the outcomes with \`verification.json\`.`,
    '',
  );
  if (img.registry) out.push(`To rebuild the image instead: \`${rebuild}\`, then \`--image ${rebuilt}\`.`, '');

  out.push('## Licences', '');
  out.push(
    `The benchmark's own work (labels, diagnoses, the edits that make the reproduced and fixed notebooks, metadata) is licensed ${meta.license}. ` +
      `Notebook code keeps the licence of its source${input.entries.some((e) => e.source.platform === 'kaggle') ? ` (Kaggle notebooks: ${meta.codeLicense})` : ''}; input data keeps its dataset's licence, listed per instance below. ` +
      'Synthetic data was generated for this benchmark where the original licence forbids redistribution.',
    '',
  );
  out.push('| id | notebook | datasets (licence) | data |', '|---|---|---|---|');
  for (const i of m.instances) {
    const e = byId.get(i.id);
    const nb = e?.source.notebookUrl ? `[${e.source.platform}](${e.source.notebookUrl})` : (e?.source.platform ?? '');
    const ds = (e?.source.datasets ?? [])
      .map((d) =>
        d.url ? `[${cell(d.title)}](${d.url}) (${cell(d.license)})` : `${cell(d.title)} (${cell(d.license)})`,
      )
      .join('; ');
    out.push(
      `| ${cell(i.id)} | ${nb} | ${ds} | ${i.syntheticData ? 'synthetic' : input.subsampled?.has(i.id) ? 'subsampled' : 'original'} |`,
    );
  }
  out.push('');

  if (m.deprecated.length > 0) {
    out.push(
      '## Deprecated instances',
      '',
      'Left out of this release; their ids are never reused.',
      '',
      '| id | deprecated in | reason |',
      '|---|---|---|',
    );
    for (const d of m.deprecated) out.push(`| ${cell(d.id)} | ${d.deprecatedIn} | ${cell(d.reason)} |`);
    out.push('');
  }

  out.push(
    '## Checksums',
    '',
    'In the extracted folder, `sha256sum -c SHA256SUMS` checks every file; the `SHA256SUMS` beside the archive checks the archive and the files published with it. ' +
      `The archive is byte-for-byte reproducible: the same curated benchmark and version give the same \`${archive}\`.`,
    '',
  );

  out.push('## Citation', '', '```bibtex', meta.citation.trim(), '```', '');
  return out.join('\n');
}

// What a repair must achieve, per instance: its checks with their reasons and how they fared against the non-fixes.
function planChecksSection(m: ReleaseManifest, out: string[]): void {
  const withChecks = m.instances.filter((i) => i.checks && i.checks.checks.length > 0);
  if (withChecks.length === 0) return;
  out.push(
    '## What a repair must achieve',
    '',
    "A repaired notebook counts as resolved only when it runs to the end, hides nothing (no exception of the labelled class swallowed, no library function replaced) and passes its instance's checks: Python assertions in `instances/<id>/checks.py`, run in the notebook's kernel after its last cell. " +
      'Each was mutation-tested: non-fixes generated from the crashing notebook (the crashing statement deleted, replaced, guarded, commented out or moved into dead code, the cell wrapped, the output faked, the exception swallowed, the library call patched) must all be rejected, and the fixed notebook must pass on two runs.',
    '',
    '| id | checks (what the fix must achieve) | non-fixes rejected |',
    '|---|---|---|',
  );
  for (const i of withChecks) {
    const c = i.checks!;
    const list = c.checks.map((x) => `\`${x.name}\`: ${cell(x.reason)}`).join('<br>');
    const score =
      c.status === 'skipped-env'
        ? 'not run here (skipped-env)'
        : `${c.rejected}/${c.mutants}${c.waived && c.waived.length > 0 ? ` (waived: ${c.waived.map((w) => `${w.mutant}: ${cell(w.reason)}`).join('; ')})` : ''}`;
    out.push(`| ${cell(i.id)} | ${list} | ${score} |`);
  }
  out.push('');
}

function annotatorsSentence(a: AgreementReport | null): string {
  if (!a || a.annotators.length === 0) return 'Labels were assigned in four dimensions.';
  const k = a.annotators.length;
  return `${k === 2 ? 'Two' : k} annotator${k === 1 ? '' : 's'} labelled the instances independently in four dimensions; disagreements were adjudicated.`;
}

function sizeCategory(n: number): string {
  if (n < 1_000) return 'n<1K';
  if (n < 10_000) return '1K<n<10K';
  if (n < 100_000) return '10K<n<100K';
  return '100K<n<1M';
}

/** A YAML double-quoted scalar: JSON's escapes are a subset of YAML's. */
function yamlString(s: string): string {
  return JSON.stringify(s);
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function fmt(x: number | null): string {
  return x === null ? 'n/a' : x.toFixed(3);
}
