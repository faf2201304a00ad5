/**
 * `botmesh compact` on an opened backend whose row of the capability table says `explicit`: the
 * file backend folds its log into its snapshot, SQLite checkpoints its WAL into the database
 * file. open.ts attaches the compactor to what it opens, so the CLI never picks one by kind.
 */
import type { FileDurability } from '../../backends/file/index.js'
import type { SQLiteDurability } from '../../backends/sqlite/index.js'

/** What a compaction did. */
export interface Compacted {
  kind: 'file' | 'sqlite'
  /** FileDurability: log records folded; SQLite: WAL frames checkpointed. */
  folded: number
  bytesFreed: number
  /** The backend's own report. */
  report: unknown
}

/** Compacts the opened backend; `onPhase` names each step for a progress line. */
export type Compactor = (onPhase: (phase: string) => void) => Promise<Compacted>

export function fileCompactor(file: FileDurability): Compactor {
  return async (onPhase) => {
    const before = file.stats()
    onPhase(`folding ${before.logRecords} log record(s) (${before.logBytes} bytes) into the snapshot`)
    const report = await file.compact()
    return { kind: 'file', folded: report.folded, bytesFreed: report.logBytes, report }
  }
}

export function sqliteCompactor(sqlite: SQLiteDurability): Compactor {
  return async (onPhase) => {
    onPhase('checkpointing the WAL into the database file')
    const report = await sqlite.compact()
    return { kind: 'sqlite', folded: report.checkpointedFrames, bytesFreed: report.walBytesBefore - report.walBytesAfter, report }
  }
}
