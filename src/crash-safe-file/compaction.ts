/**
 * Compaction: folding the append log into the snapshot (I10, I11). The snapshot, carrying the
 * log's last sequence, is made durable first; only then is the log emptied. A crash between the
 * two leaves a log whose records the snapshot already holds, and replay skips them.
 */
import { logPathOf, type AppendLog } from './append-log.js'
import { writeFileAtomic } from './atomic-snapshot.js'
import { unlinkIfThere, type FileSystem } from './fs.js'
import type { EncodedSnapshot } from './snapshot-format.js'

/** What a compaction did. */
export interface CompactionReport {
  /** Log records folded into the snapshot. */
  folded: number
  /** Log bytes freed. */
  logBytes: number
  /** Entries the new snapshot holds (0 when nothing was folded and no snapshot was written). */
  entries: number
  /** The snapshot's logSeq after the compaction. */
  logSeq: number
}

/**
 * Writes `snapshot` (the state up to `log.lastSeq`) and empties the log. The snapshot is fsynced
 * whatever the journal's fsync option, because the truncation destroys the only other copy (I11).
 */
export async function foldLog(fs: FileSystem, path: string, snapshot: EncodedSnapshot, log: AppendLog): Promise<CompactionReport> {
  const report = { folded: log.records, logBytes: log.size, entries: snapshot.entries, logSeq: log.lastSeq }
  await writeFileAtomic(fs, path, snapshot.chunks, { fsync: true })
  await log.truncate()
  return report
}

/**
 * Folds a log left by an earlier process into a new snapshot and removes it (snapshot mode keeps
 * no log). `snapshot` must carry the log's last sequence, so a crash before the unlink is harmless.
 */
export async function foldLeftoverLog(fs: FileSystem, path: string, snapshot: EncodedSnapshot | undefined): Promise<void> {
  if (snapshot) await writeFileAtomic(fs, path, snapshot.chunks, { fsync: true })
  await unlinkIfThere(fs, logPathOf(path))
}
