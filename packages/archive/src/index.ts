export {
  listArchiveEntries,
  detectArchiveKind,
  assertSafeEntries,
  unsafeEntryPathReason,
  linkEscapes,
  openZip,
  isZipSymlink,
  readZipEntryBuffer,
  readZipEntries,
  walkTar,
  DEFAULT_ARCHIVE_LIMITS,
  ArchiveBudget,
  contentByteLimit,
} from './archive-entries.js';
export { resolveArchiveLinks, normalizeEntryPath } from './resolve-archive-links.js';
export type { ArchiveLayout } from './resolve-archive-links.js';
export type { ArchiveEntry, ArchiveKind, ArchiveLimits } from './archive-entries.js';
export { extractArchive } from './extract-archive.js';
export { writeCheckedZip } from './write-checked-zip.js';
export type { ExtractReport } from './extract-archive.js';
