/**
 * What a `SharedCore` read last, and which version of the files that was, so a turn rereads only
 * as far as the files changed: the new lines of the log when only the log grew, the whole file
 * when the snapshot was replaced. Other processes write the same files, so nothing here trusts
 * memory over what a stat shows.
 */
import type { KvState } from '../core/durability/memory/kv-state.js'
import { AppendLogCorruptError } from '../core/errors/errors.js'
import { logPathOf, scanAppendLog } from '../crash-safe-file/append-log.js'
import { readJournalFile } from '../crash-safe-file/atomic-snapshot.js'
import { applyChanges, decodeChanges } from '../crash-safe-file/changes.js'
import type { FileStat, FileSystem } from '../crash-safe-file/fs.js'
import { loadJournal } from '../crash-safe-file/recovery.js'

/** The journal as this process read it last, and which version of the files that was. */
export interface ReadCache {
  state: KvState
  /** The snapshot's inode, size and mtime when read (undefined: cannot tell versions apart, always reread). */
  snapshot: string | undefined
  /** The last log sequence applied (in the snapshot or the log). */
  lastSeq: number
  /** The log's complete records and their bytes, and the file's size when read (a torn tail included). */
  logRecords: number
  logValidBytes: number
  logFileBytes: number
}

/** Which version of a file a stat saw: 'none' when missing, undefined when the file system cannot tell. */
export function fileIdentity(stat: FileStat | undefined): string | undefined {
  if (!stat) return 'none'
  if (stat.ino === undefined || stat.mtimeMs === undefined) return undefined
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
}

/** The snapshot and its log read whole (a damaged file is refused). */
export async function readWhole(fs: FileSystem, path: string, format: string): Promise<ReadCache> {
  const loaded = await loadJournal(fs, path, format)
  const log = loaded.log
  return {
    state: loaded.state,
    snapshot: fileIdentity(await fs.stat(path)),
    lastSeq: loaded.lastSeq,
    logRecords: log?.records.length ?? 0,
    logValidBytes: log?.validBytes ?? 0,
    logFileBytes: log ? log.validBytes + (log.tornTail?.bytes ?? 0) : 0,
  }
}

/**
 * Applies the log records past the cache's to its state; undefined when the log does not continue
 * it (read it whole).
 */
export async function readLogGrowth(fs: FileSystem, path: string, cache: ReadCache): Promise<ReadCache | undefined> {
  const logPath = logPathOf(path)
  const content = await readJournalFile(fs, logPath, { allowEmpty: true })
  if (!content) return undefined
  const scan = scanAppendLog(logPath, content)
  const fresh = scan.records.filter((record) => record.seq > cache.lastSeq)
  if (fresh.length > 0 && fresh[0]!.seq !== cache.lastSeq + 1) return undefined
  for (const record of fresh) {
    const changes = decodeChanges(record.payload)
    if (typeof changes === 'string') throw new AppendLogCorruptError(logPath, record.line, record.offset, changes)
    applyChanges(cache.state, changes)
  }
  return {
    ...cache,
    lastSeq: fresh.at(-1)?.seq ?? cache.lastSeq,
    logRecords: scan.records.length,
    logValidBytes: scan.validBytes,
    logFileBytes: content.length,
  }
}
