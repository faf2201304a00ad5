/**
 * `FileEventJournal`: an events journal in one file, for one process. Every write rewrites the
 * whole file atomically (temp file, fsync when asked, rename); writes made while a rewrite is in
 * flight share the next one, and lease heartbeats are written only with the next change. It runs
 * on the state, commits and lock FileDurability uses (src/crash-safe-file, its
 * INVARIANTS.md), in snapshot mode under its own format name.
 */
import { dirname } from 'node:path'
import type { KvState } from '../core/durability/memory/kv-state.js'
import { BotmeshError, JournalUnavailableError } from '../core/errors/errors.js'
import { DurableState } from '../crash-safe-file/durable-state.js'
import { DIRECTORY_MODE } from '../crash-safe-file/fs.js'
import { CoreJournal } from './base-journal.js'
import type { JournalCore, Plan } from './core.js'
import { withMutex } from './mutex-file.js'
import { resolveFileJournalOptions, type FileEventJournalOptions } from './options.js'

/**
 * An events journal in a file: `FileEventJournal.open(path, { lock: true, fsync })`.
 *
 * With `lock: true` the pid lock `<path>.lock` stops a second process from opening the file, and
 * a second `open()` of it in this process is refused until the first journal is closed
 * (`JournalLockedError`, code `JOURNAL_LOCKED`, with the holder's pid). `eventsDurability` needs
 * it. A `SharedFileEventJournal` refuses a file a locked FileEventJournal holds.
 */
export class FileEventJournal extends CoreJournal {
  /**
   * Who may write it: this process alone under the pid lock (`'locked'`, opened with `lock`),
   * nobody (`'read-only'`, opened `readOnly`), or nobody checks (`'unguarded'`, the default without
   * either: `eventsDurability` refuses it).
   */
  readonly writers: 'locked' | 'unguarded' | 'read-only'

  private constructor(core: FileCore, writers: 'locked' | 'unguarded' | 'read-only') {
    super(core)
    this.writers = writers
  }

  /**
   * Opens (or, on the first write, creates) the journal at `path`. A leftover `<path>.log` (a
   * shared journal's) is folded in. Rejects with `JournalLockedError` when another live process
   * holds the lock or the file is open in this process; with `JournalCorruptError` (code
   * `JOURNAL_CORRUPT`) for a file that cannot be read back, and `AppendLogCorruptError` (code
   * `APPEND_LOG_CORRUPT`, `file`, `line`, `offset`) for a damaged log line: the files are left as
   * they are. With `lock`, open first waits for a shared journal's write in flight (its mutex),
   * so no shared write can land after the file was read.
   */
  static async open(path: string, options: FileEventJournalOptions = {}): Promise<FileEventJournal> {
    const resolved = resolveFileJournalOptions(options)
    const open = () => DurableState.open(path, resolved.file)
    try {
      let durable: DurableState
      if (resolved.file.lock && !resolved.file.readOnly) {
        await resolved.file.fs.mkdir(dirname(path), DIRECTORY_MODE)
        durable = await withMutex(path, resolved.mutex, open)
      } else {
        durable = await open()
      }
      return new FileEventJournal(new FileCore(durable), resolved.file.readOnly ? 'read-only' : resolved.file.lock ? 'locked' : 'unguarded')
    } catch (error) {
      if (error instanceof BotmeshError) throw error
      throw new JournalUnavailableError(
        `${path}: the events journal cannot be opened: ${error instanceof Error ? error.message : String(error)}`,
        error,
      )
    }
  }

  /** Whether the journal holds the pid lock. */
  get locked(): boolean {
    return this.writers === 'locked'
  }

  /** Lets the writes in flight commit, then releases the lock; later calls reject with `JournalClosedError`. Idempotent. */
  override close(): Promise<void> {
    return super.close()
  }
}

/** A core that commits through FileDurability's state (snapshot mode). */
class FileCore implements JournalCore {
  constructor(private readonly durable: DurableState) {}

  get path(): string {
    return this.durable.path
  }

  get closed(): boolean {
    return this.durable.closed
  }

  now(): number {
    return this.durable.options.now()
  }

  async run<T>(plan: Plan<T>, options: { deferred?: boolean } = {}): Promise<T> {
    // The plan reads the state and writePlaced applies its ops in the same tick: nothing runs between.
    const step = plan(this.durable.state)
    if (step.ops.length === 0) return this.durable.read(() => step.result([]))
    const results = options.deferred ? await this.durable.writeDeferred(step.ops) : await this.durable.writePlaced(step.ops)
    return step.result(results)
  }

  read<T>(read: (state: KvState) => T): Promise<T> {
    return this.durable.read(() => read(this.durable.state))
  }

  flush(): Promise<void> {
    return this.durable.flush()
  }

  close(): Promise<void> {
    return this.durable.close()
  }
}
