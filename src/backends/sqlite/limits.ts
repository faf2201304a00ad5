/**
 * Every limit of the SQLite backend, named, with units last, in one place.
 */
export const SQLITE_LIMITS = {
  /**
   * How long a statement waits for another process's write lock before it fails with
   * SQLITE_BUSY. Processes sharing the file take turns; this must cover the longest write
   * transaction of any of them (group commits included).
   */
  busyTimeoutMs: 5_000,
  /**
   * Ops one group commit applies at most. Concurrent `write` calls are combined into one
   * transaction up to this many ops (a single call larger than this still runs whole, in one
   * transaction), so no one transaction holds the write lock for long.
   */
  groupCommitOpsMax: 1_000,
  /**
   * The size the WAL file is truncated back to after a checkpoint. SQLite reuses the WAL file from
   * its start after each checkpoint, but leaves it at its largest size unless told otherwise.
   */
  walSizeLimitBytes: 64 * 1024 * 1024,
  /** Problems `PRAGMA integrity_check` reports at most. */
  integrityProblemsMax: 100,
} as const

/** The limits a caller may change. */
export interface SQLiteTimeouts {
  /** @default SQLITE_LIMITS.busyTimeoutMs (5000) */
  busyTimeoutMs?: number
}
