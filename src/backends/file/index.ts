/**
 * `FileDurability`: journals in one file on this host, that survive a crash. Single process: a
 * lock file refuses a second live process, and a second open in the same process until `close()`.
 * The rules it keeps are in src/crash-safe-file/INVARIANTS.md.
 */
import { KvDurability } from '../../core/spi.js'
import { BotmeshError, JournalUnavailableError } from '../../core/errors/errors.js'
import { DurableState } from '../../crash-safe-file/durable-state.js'
import type { FileJournalStats } from '../../crash-safe-file/journal-stats.js'
import type { CompactionReport } from '../../crash-safe-file/compaction.js'
import { FileKv } from './kv.js'
import { refuseUnknownFileOptions, resolveFileOptions, type FileDurabilityOptions } from '../../crash-safe-file/options.js'

/**
 * Journals kept in a file: `FileDurability.open(path, options)`.
 *
 * Lifecycle:
 * - `open()` takes the lock (unless `readOnly`), loads the snapshot, replays the log and tidies
 *   leftovers (a torn log tail is cut; a damaged file is refused and left as it is). The journal
 *   is usable from here: reads and writes work with or without `start()`.
 * - `start()` / `stop()` are what the bot calls, counted (`KvDurability`): `start` checks the
 *   journal is still open; the last `stop` waits for the writes in flight to commit. Neither takes
 *   nor releases the lock, so a bot can stop and start again on the same open journal.
 * - `close()` is the owner's: it lets the writes in flight commit, folds the log into the snapshot,
 *   releases the lock; later calls reject with `JournalClosedError`. Call it after `bot.stop()`.
 *   A process that exits without it loses nothing: the next open replays the log and takes over
 *   the lock of the dead process.
 */
export class FileDurability extends KvDurability {
  /** The journal file (the snapshot); the log is `<path>.log`, the lock `<path>.lock`. */
  readonly path: string
  /** Whether this open takes no lock and refuses writes. */
  readonly readOnly: boolean
  override readonly kv: FileKv

  private constructor(kv: FileKv, readOnly: boolean) {
    super(kv, { kind: 'file', shared: false })
    this.kv = kv
    this.path = kv.path
    this.readOnly = readOnly
  }

  /**
   * Opens (or, on the first write, creates) the journal at `path`.
   *
   * Rejects with `JournalLockedError` (code `JOURNAL_LOCKED`, the holder's `pid`) when another live
   * process holds it or it is already open in this process; with `JournalCorruptError` (code
   * `JOURNAL_CORRUPT`, the `file`) when the snapshot cannot be read back (cut short, junk, 0 bytes,
   * a directory); with `AppendLogCorruptError` (code `APPEND_LOG_CORRUPT`, `file`, `line`,
   * `offset`) when a log record other than a torn last line is damaged; with `ConfigError` for bad
   * options. A refused journal is left exactly as it was: restore it from a backup or move it aside
   * (`salvage()` writes what is readable into a new file).
   */
  static async open(path: string, options: FileDurabilityOptions = {}): Promise<FileDurability> {
    refuseUnknownFileOptions(options)
    const resolved = resolveFileOptions(options)
    const state = await DurableState.open(path, resolved).catch((error: unknown) => {
      if (error instanceof BotmeshError) throw error
      // An operating error of the file system (EACCES, ENOTDIR, EIO…): name the file.
      throw new JournalUnavailableError(
        `${path}: the journal cannot be opened: ${error instanceof Error ? error.message : String(error)}`,
        error,
      )
    })
    return new FileDurability(new FileKv(state), resolved.readOnly)
  }

  /** Folds the log into the snapshot now (appendLog mode; a no-op in snapshot mode). */
  compact(): Promise<CompactionReport> {
    return this.kv.compact()
  }

  /** Figures about the open journal: entries, log records and bytes, the last compaction error. */
  stats(): FileJournalStats {
    return this.kv.stats()
  }

  /** Lets writes in flight commit, folds the log into the snapshot and releases the lock. Idempotent. */
  close(): Promise<void> {
    return this.kv.close()
  }
}

export { FileKv } from './kv.js'
export type { FileDurabilityOptions, AppendLogOptions } from '../../crash-safe-file/options.js'
export { FILE_LIMITS } from '../../crash-safe-file/options.js'
export type { CompactionReport } from '../../crash-safe-file/compaction.js'
export type { FileJournalStats } from '../../crash-safe-file/journal-stats.js'
export { verifyJournal, type VerifyReport, type FileReport, type DamageCode, DAMAGE_CODES } from './verify.js'
export { salvageJournal, type SalvageReport } from './salvage.js'
export { nodeFileSystem, type FileSystem, type FileHandle, type FileStat, type OpenHow } from '../../crash-safe-file/fs.js'
