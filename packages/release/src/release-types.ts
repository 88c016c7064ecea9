import type {
  AgreementReport,
  Benchmark,
  ChecksReport,
  CroissantDataset,
  DeprecatedInstance,
  ImageRecord,
  Instance,
  ReleaseImagePush,
  ReleaseManifest,
  ReleaseMetadata,
  ReleaseRefusal,
  VerificationReport,
} from '@junobench/core';

/**
 * A file that goes into the archive as it is, already hashed: its bytes stay where they are until the archive is
 * written.
 */
export interface SourceFile {
  /** Path in the archive, relative to its top folder, `/`-separated. */
  path: string;
  bytes: number;
  sha256: string;
  /** Where the bytes are (for a link inside an instance folder: its target). */
  abs: string;
}

/** One curated instance as prepare found it. */
export interface InstanceInput {
  id: string;
  /** instance.json as curated (final labels). `status` is read when present (drafts: docs/sources.md, "`add`"). */
  instance: Instance & { status?: string };
  /** Every file of curated/instances/<id>/ with its archive path (instances/<id>/…). */
  files: SourceFile[];
}

/**
 * Everything a release is made of, as data: read by readReleaseInputs from
 * curated/, the image recipe, raw/deprecated.json and the previous release,
 * and passed to planRelease, which does no I/O (so it is tested on literal
 * inputs).
 */
export interface ReleaseInputs {
  version: string;
  /** Seconds since 1970: entry mtimes and the manifest's createdAt. */
  sourceDateEpoch: number;
  toolchain: { name: string; version: string; commit: string | null; dirty: boolean | null };
  metadata: ResolvedMetadata;
  benchmark: Benchmark;
  /** The text of benchmark.csv (its header names the columns the Croissant fields map). */
  benchmarkCsv: string;
  verification: VerificationReport;
  /** checks.json: each instance's checks and their recorded mutation test; null: a curated tree from before checks. */
  checks?: ChecksReport | null;
  agreement: AgreementReport | null;
  /**
   * The agreement figures were recomputed without the deprecated instances
   * (pipeline's release view). Unset: they are the build's, over every
   * annotated instance, deprecated ones included.
   */
  agreementRecomputed?: boolean;
  instances: InstanceInput[];
  /**
   * Other files of the archive (benchmark.json/.csv, verification.json, labels/, stats/, report/, image/): paths in the
   * archive.
   */
  files: SourceFile[];
  image: {
    profile: string;
    /** Archive paths of the recipe files (also present in `files`). */
    recipe: string[];
    record: ImageRecord | null;
    push: ReleaseImagePush | null;
  };
  deprecated: DeprecatedInstance[];
  /** Instances whose instance.json (raw or curated) says `"status": "draft"`: a release refuses them. */
  drafts: string[];
  previous: ReleaseManifest | null;
  /** Notes found while reading (a missing optional file…), carried into the plan's warnings. */
  warnings: string[];
}

/** ReleaseMetadata with every default filled in. */
export type ResolvedMetadata = Required<Omit<ReleaseMetadata, 'repository' | 'toolchainRepository'>> & {
  repository?: string;
  /** Where a downloader clones the toolchain (resolved by prepare: raw/release.json, else the checkout's remote). */
  toolchainRepository?: string;
};

/** Why a release is refused; all of them are listed at once (the shape `release prepare --json` writes). */
export type Refusal = ReleaseRefusal;

/** A file of the archive, with where its bytes come from. */
export type PlannedFile =
  | { path: string; bytes: number; sha256: string; from: 'file'; abs: string }
  | { path: string; bytes: number; sha256: string; from: 'generated'; content: string };

export interface ChangedInstance {
  id: string;
  files: { added: string[]; removed: string[]; modified: string[] };
  labels: { dimension: string; from: string; to: string }[];
  verification: { what: 'status' | 'reproduced' | 'fixed'; from: string; to: string }[];
}

/** What changed since the previous release, as data (CHANGELOG.md is its rendering). */
export interface Changelog {
  version: string;
  previous: string | null;
  added: string[];
  removed: { id: string; deprecated?: DeprecatedInstance }[];
  changed: ChangedInstance[];
  /** Deprecated since the previous release (whether or not the previous one held them). */
  newlyDeprecated: DeprecatedInstance[];
  image: { from: string | null; to: string | null } | null;
  otherFiles: { added: string[]; removed: string[]; modified: string[] };
}

export interface ReleasePlan {
  version: string;
  tag: string;
  /** junobench-<version>: the top folder in the archive, the release folder and the archive's base name. */
  name: string;
  archiveName: string;
  sourceDateEpoch: number;
  refusals: Refusal[];
  warnings: string[];
  /** Every file of the archive, sorted by path (manifest.json and SHA256SUMS included). */
  files: PlannedFile[];
  manifest: ReleaseManifest;
  changelog: Changelog;
  /** croissant.json as it is inside the archive (describes the extracted files). */
  croissant: CroissantDataset;
  metadata: ResolvedMetadata;
}

/** The release folder's files beside the archive, once the archive's own digest is known. */
export interface SealedRelease {
  archive: { name: string; bytes: number; sha256: string };
  /** croissant.json beside the archive: the inner one plus the archive as a FileObject with its sha256. */
  croissant: CroissantDataset;
  /** Files of the release folder other than the archive, in write order (SHA256SUMS last). */
  files: { name: string; content: string }[];
}
