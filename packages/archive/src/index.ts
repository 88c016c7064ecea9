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
} from './archive-entries.js';
export type { ArchiveEntry, ArchiveKind, ArchiveLimits } from './archive-entries.js';
export { extractArchive } from './extract-archive.js';
export type { ExtractReport } from './extract-archive.js';
