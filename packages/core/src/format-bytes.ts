export interface FormatBytesOptions {
  /**
   * `iec` (default): powers of 1024 named KiB, MiB, GiB, TiB ("1023 bytes", "1.5 KiB", "167 MiB"); `si`: powers of
   * 1000 named kB, MB, GB, TB ("999 B", "50.0 MB"); `jedec`: powers of 1024 named KB, MB, GB, TB ("12.3 KB").
   */
  units?: 'iec' | 'si' | 'jedec';
  /** Digits after the point; default: iec one below 10 and none from 10 up ("1.2 KiB", "167 MiB"), si and jedec one. */
  decimals?: number;
}

const UNITS = {
  iec: { base: 1024, small: 'bytes', names: ['KiB', 'MiB', 'GiB', 'TiB'] },
  si: { base: 1000, small: 'B', names: ['kB', 'MB', 'GB', 'TB'] },
  jedec: { base: 1024, small: 'B', names: ['KB', 'MB', 'GB', 'TB'] },
} as const;

/**
 * A byte count for people: the one formatter of the toolchain, so that sizes read the same in every message (limits
 * hit, data collected, the report's file lists). Below one unit the count is exact.
 */
export function formatBytes(bytes: number, options: FormatBytesOptions = {}): string {
  const system = options.units ?? 'iec';
  const { base, small, names } = UNITS[system];
  if (bytes < base) return `${bytes} ${small}`;
  let v = bytes / base;
  let i = 0;
  while (v >= base && i < names.length - 1) {
    v /= base;
    i++;
  }
  const decimals = options.decimals ?? (system === 'iec' ? (v < 10 ? 1 : 0) : 1);
  return `${v.toFixed(decimals)} ${names[i]}`;
}
