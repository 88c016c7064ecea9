/** One entry of a zip or tar archive, as the archive lists it (before anything is extracted). */
export interface ArchiveEntry {
  /** The entry's path as stored, `/`-separated (a trailing `/` removed). */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'hardlink';
  /** Uncompressed size in bytes (0 for links and folders). */
  size: number;
  /** Target of a symlink or hard link. */
  linkpath?: string;
}
