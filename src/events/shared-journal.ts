/**
 * `SharedFileEventJournal`: an events journal file that several processes on one host open at
 * once. Every operation runs under the file's cross-process mutex (`<file>.mutex`) against the
 * file as it is now, so claims are exclusive and fencing tokens hold across processes.
 */
import { dirname } from 'node:path'
import { BotmeshError, JournalLockedError, JournalUnavailableError } from '../core/errors/errors.js'
import { fileAnchorStore } from '../crash-safe-file/clock-anchor-file.js'
import { DIRECTORY_MODE } from '../crash-safe-file/fs.js'
import { HostClock } from '../crash-safe-file/host-clock.js'
import { lockHolderOf } from '../crash-safe-file/lock-file.js'
import { CoreJournal } from './base-journal.js'
import { resolveSharedOptions, type SharedFileEventJournalOptions } from './options.js'
import { SharedCore } from './shared-core.js'

/**
 * An events journal shared by a few processes on one host (or a file system with atomic rename and
 * exclusive create; not NFS): `SharedFileEventJournal.open(path, options)`.
 *
 * By default every write rereads and rewrites the whole file; with `appendLog` each write appends
 * one line of what changed to `<path>.log`, folded into the file every 1000 lines or 4 MiB. A
 * mutex left by a dead process is broken at once; a live holder refreshes its mtime every
 * `heartbeatMs`, so only a holder stalled for `staleLockMs` is treated as abandoned. The file
 * format is `FileEventJournal`'s, but never open a file with both at the same time: a shared
 * journal refuses a file a live locked `FileEventJournal` holds, also when that journal opens it
 * later (every shared operation then rejects with `JournalLockedError`).
 */
export class SharedFileEventJournal extends CoreJournal {
  /** Always `'shared'`: several processes write the file, each operation under its mutex. */
  readonly writers = 'shared' as const
  readonly #core: SharedCore

  private constructor(core: SharedCore) {
    super(core)
    this.#core = core
  }

  /**
   * Opens (or, on the first write, creates) the shared journal at `path`. Rejects with
   * `JournalLockedError` when a live locked `FileEventJournal` holds the file; with
   * `JournalCorruptError` / `AppendLogCorruptError` (code `APPEND_LOG_CORRUPT`, `file`, `line`,
   * `offset`) when it cannot be read back, leaving the files as they are; with `ConfigError` for
   * bad options.
   */
  static async open(path: string, options: SharedFileEventJournalOptions = {}): Promise<SharedFileEventJournal> {
    const resolved = resolveSharedOptions(options)
    const { fs } = resolved.file
    try {
      await fs.mkdir(dirname(path), DIRECTORY_MODE)
      const holder = await lockHolderOf(fs, path)
      if (holder) {
        throw new JournalLockedError(
          path,
          holder.pid,
          `${path} is held by a FileEventJournal opened with { lock: true } in process ${holder.pid}; close it before sharing the file`,
        )
      }
      // Without a clock of the caller's, leases are judged by the host clock anchored beside the file.
      const clock = options.now ? undefined : new HostClock(fileAnchorStore(fs, path))
      const core = new SharedCore(path, { ...resolved, clock })
      await core.open()
      return new SharedFileEventJournal(core)
    } catch (error) {
      if (error instanceof BotmeshError) throw error
      throw new JournalUnavailableError(
        `${path}: the shared events journal cannot be opened: ${error instanceof Error ? error.message : String(error)}`,
        error,
      )
    }
  }

  /** The error of the last fold of the log into the file, if it failed (the log keeps every write meanwhile). */
  get compactionError(): unknown {
    return this.#core.compactionError
  }

  /** Lets the operations already called finish and rejects later ones (`JournalClosedError`). Idempotent. */
  override close(): Promise<void> {
    return super.close()
  }
}
