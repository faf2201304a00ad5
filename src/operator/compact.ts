/**
 * `compact`: fold a FileDurability log into its snapshot, or checkpoint a SQLite WAL into the
 * database file. Server backends (Redis, PostgreSQL) reclaim space on their own, so there is
 * nothing for the CLI to do there and it says so.
 */
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import { capabilitiesOf, type BackendTarget, type OpenedBackend } from './gateway/open.js'

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
export async function compact(opened: OpenedBackend, onPhase: (phase: string) => void = () => {}): Promise<CompactOutcome> {
  if (!opened.compact) throw new BotmeshError(ERROR_CODES.NOT_APPLICABLE, `${opened.label} has no explicit compaction`)
  const { kind, folded, bytesFreed, report } = await opened.compact(onPhase)
  return { backend: opened.label, kind, folded, bytesFreed, report }
}
