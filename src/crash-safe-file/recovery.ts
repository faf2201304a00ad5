/**
 * Loading a journal on open: the snapshot read whole (I9), then the log replayed past the
 * snapshot's `logSeq` (I10), a torn tail noted for the caller to cut (I8). Nothing here writes:
 * a journal that cannot be read back is refused with every file as it was.
 */
import { AppendLogCorruptError } from '../core/errors/errors.js'
import { KvState } from '../core/backend-internals.js'
import { readJournalFile } from './atomic-snapshot.js'
import { logPathOf, readAppendLog, type LogScan } from './append-log.js'
import { applyChanges, decodeChanges } from './changes.js'
import type { FileSystem } from './fs.js'
import { decodeSnapshot, SNAPSHOT_FORMAT, type SnapshotEncodingCache } from './snapshot-format.js'

/** A journal as loaded from its files. */
export interface LoadedJournal {
  state: KvState
  /** Whether a snapshot file exists. */
  snapshotExists: boolean
  /** The last log sequence folded into the snapshot (0 without one). */
  snapshotLogSeq: number
  /** The last sequence known: the log's last record, or the snapshot's logSeq if larger. */
  lastSeq: number
  /** The log as read (undefined when there is none). */
  log: LogScan | undefined
  /** Log records applied on top of the snapshot (the others were already in it). */
  replayed: number
}

/**
 * Reads the snapshot (of `format`) and replays the log into a fresh state; refuses damage (I8, I9,
 * I10). A journal that will fold passes `encoded`: the snapshot's lines go into it as read, so its
 * first fold frames them again instead of encoding every entry (at 100,000 entries that encoding
 * held writes for more than half a second).
 */
export async function loadJournal(
  fs: FileSystem,
  path: string,
  format: string = SNAPSHOT_FORMAT,
  encoded?: SnapshotEncodingCache,
): Promise<LoadedJournal> {
  const content = await readJournalFile(fs, path, { allowEmpty: false })
  const snapshot = content === undefined ? { logSeq: 0, entries: [] } : decodeSnapshot(path, content, format, encoded)
  const state = new KvState()
  for (const { scope, collection, entry } of snapshot.entries) state.load(scope, collection, entry)
  const logPath = logPathOf(path)
  const log = await readAppendLog(fs, logPath)
  const records = log?.records ?? []
  const first = records[0]
  if (first && first.seq > snapshot.logSeq + 1) {
    throw new AppendLogCorruptError(
      logPath,
      first.line,
      first.offset,
      `the log starts at sequence ${first.seq} but ${content === undefined ? 'there is no snapshot' : `the snapshot holds up to ${snapshot.logSeq}`}; records ${snapshot.logSeq + 1}..${first.seq - 1} are missing (an older or lost snapshot)`,
    )
  }
  let replayed = 0
  for (const record of records) {
    if (record.seq <= snapshot.logSeq) continue // already folded into the snapshot (I10)
    const changes = decodeChanges(record.payload)
    if (typeof changes === 'string') throw new AppendLogCorruptError(logPath, record.line, record.offset, changes)
    applyChanges(state, changes)
    replayed++
  }
  return {
    state,
    snapshotExists: content !== undefined,
    snapshotLogSeq: snapshot.logSeq,
    lastSeq: Math.max(snapshot.logSeq, records.at(-1)?.seq ?? 0),
    log,
    replayed,
  }
}
