/**
 * `compact`: fold a FileDurability log into its snapshot, or checkpoint a SQLite WAL into the
 * database file. Server backends (Redis, PostgreSQL) reclaim space on their own, so there is
 * nothing for the CLI to do there and it says so.
 */
import type { DurabilityBackend } from '../../core/durability/backend.js'
import { BotmeshError, ERROR_CODES } from '../../core/errors.js'
import { capabilitiesOf, type BackendTarget } from '../../backends/open.js'

/** What `compact` did. */
export interface CompactOutcome {
  backend: string
  kind: 'file' | 'sqlite'
  /** FileDurability: log records folded and bytes freed; SQLite: WAL frames checkpointed and bytes freed. */
  folded: number
  bytesFreed: number
  /** The backend's own report. */
  report: unknown
}

/** Whether the target is something `compact` works on; throws `NOT_APPLICABLE` otherwise (before anything opens). */
export function assertCompactable(target: BackendTarget): void {
  const { compaction } = capabilitiesOf(target)
  if (compaction === 'explicit') return
  if (compaction === 'automatic') {
    throw new BotmeshError(
      ERROR_CODES.NOT_APPLICABLE,
      `${target.label}: an events journal compacts on its own (a FileEventJournal rewrites its file on every write; a shared one folds its log every 1000 entries or 4 MiB); there is no explicit compaction to run`,
    )
  }
  throw new BotmeshError(
    ERROR_CODES.NOT_APPLICABLE,
    `compact works on file journals (file:) and SQLite files (sqlite:); ${target.label} is ${target.kind}, which reclaims space on its own (Redis memory, PostgreSQL autovacuum)`,
  )
}

/** Compacts an opened file or SQLite backend; `onPhase` names each step for a progress line. */
export async function compact(backend: DurabilityBackend, label: string, onPhase: (phase: string) => void = () => {}): Promise<CompactOutcome> {
  if (backend.kind === 'file') {
    const file = backend as import('../../backends/file/index.js').FileDurability
    const before = file.stats()
    onPhase(`folding ${before.logRecords} log record(s) (${before.logBytes} bytes) into the snapshot`)
    const report = await file.compact()
    return { backend: label, kind: 'file', folded: report.folded, bytesFreed: report.logBytes, report }
  }
  const sqlite = backend as import('../../backends/sqlite/index.js').SQLiteDurability
  onPhase('checkpointing the WAL into the database file')
  const report = await sqlite.compact()
  return { backend: label, kind: 'sqlite', folded: report.checkpointedFrames, bytesFreed: report.walBytesBefore - report.walBytesAfter, report }
}
