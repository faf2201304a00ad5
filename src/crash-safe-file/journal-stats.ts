/** The figures `stats()` reports about an open file journal (`FileDurability`, `FileKv`). */

/** Figures about an open journal. */
export interface FileJournalStats {
  /** Entries the journal holds now, across every scope and collection. */
  entries: number
  /** Records in the log, not yet folded into the snapshot. */
  logRecords: number
  /** Size of the log file in bytes (its valid part, up to the last whole record). */
  logBytes: number
  /** The last log sequence folded into the snapshot. */
  logSeq: number
  /** The error of the last background compaction, if it failed (the log keeps every record). */
  compactionError: unknown
}
