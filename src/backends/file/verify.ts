/**
 * `verifyJournal(path)`: what the CLI's `verify` prints for a file journal. Reports damage (file,
 * line, byte offset) and a torn tail, and changes nothing: safe on a journal a live process holds.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import { logPathOf } from '../../crash-safe-file/append-log.js'
import { nodeFileSystem, type FileSystem } from '../../crash-safe-file/fs.js'
import { inspectJournal } from './inspection.js'
import { lockHolderOf } from '../../crash-safe-file/lock-file.js'

/** One file of a journal, as verified. */
export interface FileReport {
  /** Its path. */
  file: string
  /** Whether it exists. */
  exists: boolean
  /** Its size in bytes. */
  bytes: number
  /** Snapshot entries, or log records, that read back sound (up to the damage). */
  records: number
  /**
   * The first damage; `line` 0 when the file as a whole is unusable (0 bytes, a directory). `code`
   * is the one open() refuses it with: `JOURNAL_CORRUPT` for the snapshot, `APPEND_LOG_CORRUPT` for the log.
   */
  damage?: {
    /** The damaged line, from 1 (0: the whole file). */
    line: number
    /** Its byte offset. */
    offset: number
    /** What is wrong with it. */
    detail: string
    /** The code open() refuses it with. */
    code: DamageCode
  }
  /** An incomplete last log line, which the next writable open cuts (not damage). */
  tornTail?: {
    /** Where it starts, in bytes. */
    offset: number
    /** Its length in bytes. */
    bytes: number
  }
}

/** The error code open() refuses each file's damage with (JournalCorruptError, AppendLogCorruptError). */
export const DAMAGE_CODES = {
  /** A damaged snapshot file: `JOURNAL_CORRUPT`. */
  snapshot: ERROR_CODES.JOURNAL_CORRUPT,
  /** A damaged append log: `APPEND_LOG_CORRUPT`. */
  log: ERROR_CODES.APPEND_LOG_CORRUPT,
} as const
/** The code of a damaged journal file: the snapshot's or the log's. */
export type DamageCode = (typeof DAMAGE_CODES)[keyof typeof DAMAGE_CODES]

/** What `verifyJournal` found. */
export interface VerifyReport {
  /** Whether `FileDurability.open` would accept the journal. */
  ok: boolean
  /** The snapshot file. */
  snapshot: FileReport
  /** The append log. */
  log: FileReport
  /** Log records beyond the snapshot, replayed on open. */
  logRecordsToReplay: number
  /** The pid of a live process holding the lock, if any. */
  lockedBy?: number
}

/** Checks the journal at `path` (and `<path>.log`) the way open() would, reporting instead of refusing. */
export async function verifyJournal(path: string, options: { fs?: FileSystem } = {}): Promise<VerifyReport> {
  const fs = options.fs ?? nodeFileSystem
  const { snapshot, log } = await inspectJournal(fs, path)
  const holder = await lockHolderOf(fs, path)
  const logSeq = snapshot.header?.logSeq ?? 0
  const report: VerifyReport = {
    ok: !snapshot.damage && !log.damage,
    snapshot: {
      file: path,
      exists: snapshot.exists,
      bytes: snapshot.bytes,
      records: snapshot.entries.length,
      ...(snapshot.damage && { damage: { ...snapshot.damage, code: DAMAGE_CODES.snapshot } }),
    },
    log: {
      file: logPathOf(path),
      exists: log.exists,
      bytes: log.bytes,
      records: log.records.length,
      ...(log.damage && { damage: { ...log.damage, code: DAMAGE_CODES.log } }),
      ...(log.tornTail && { tornTail: log.tornTail }),
    },
    logRecordsToReplay: log.records.filter((record) => record.seq > logSeq).length,
  }
  if (holder) report.lockedBy = holder.pid
  return report
}
