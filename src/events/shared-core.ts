/**
 * The core of `SharedFileEventJournal`: every operation runs holding the file's cross-process
 * mutex, against the file as it is now. Operations called while one is in flight share the next
 * turn (one mutex, one reread, one commit: FileDurability's group commit). The state read last is
 * kept, and reread only as far as the files changed: the new lines of the log when only the log
 * grew, the whole file when the snapshot was replaced.
 */
import type { KvWriteResult } from '../core/durability/journal/kv.js'
import type { KvState } from '../core/durability/memory/kv-state.js'
import { JournalClosedError, JournalLockedError, JournalUnavailableError } from '../core/errors/errors.js'
import { AppendLog, logPathOf } from '../crash-safe-file/append-log.js'
import { AfterRenameError, removeStrayTemps, writeFileAtomic } from '../crash-safe-file/atomic-snapshot.js'
import { encodeChanges } from '../crash-safe-file/changes.js'
import { foldLog } from '../crash-safe-file/compaction.js'
import { unlinkIfThere } from '../crash-safe-file/fs.js'
import { GroupCommit } from '../crash-safe-file/group-commit.js'
import type { HostClock } from '../crash-safe-file/host-clock.js'
import { lockHolderOf, lockPathOf } from '../crash-safe-file/lock-file.js'
import type { ResolvedFileOptions } from '../crash-safe-file/options.js'
import { applyPlacedWrite, type PendingWrite } from '../crash-safe-file/pending-writes.js'
import { encodeSnapshot, type SnapshotEncodingCache } from '../crash-safe-file/snapshot-format.js'
import type { JournalCore, Plan, PlanStep } from './core.js'
import { acquireMutex, type HeldMutex, type MutexOptions } from './mutex-file.js'
import { fileIdentity, readLogGrowth, readWhole, type ReadCache } from './read-cache.js'

/** One operation waiting for its turn. */
interface Turn {
  plan: Plan<unknown>
  step?: PlanStep<unknown>
  results?: KvWriteResult[]
  answer?: unknown
  failed?: { error: unknown }
}

/** Everything a shared core needs. */
export interface SharedCoreOptions {
  file: ResolvedFileOptions
  mutex: MutexOptions
  batchMax: number
  /** The clock leases are judged by when no `now` was given: one for every process of the host. */
  clock?: HostClock
}

export class SharedCore implements JournalCore {
  readonly path: string
  readonly #options: SharedCoreOptions
  readonly #turns: GroupCommit<Turn>
  readonly #encoded: SnapshotEncodingCache = new WeakMap()
  #cache: ReadCache | undefined
  /** Turns started so far: a read without the mutex checks that none started while it looked at the files. */
  #turnsTaken = 0
  #closing: Promise<void> | undefined
  /** The error of the last compaction, if it failed (the log keeps every record meanwhile). */
  compactionError: unknown

  constructor(path: string, options: SharedCoreOptions) {
    this.path = path
    this.#options = options
    this.#turns = new GroupCommit<Turn>({ batchMax: options.batchMax, commit: (turns) => this.#take(turns) })
  }

  get closed(): boolean {
    return this.#closing !== undefined
  }

  now(): number {
    return this.#options.clock ? this.#options.clock.now() : this.#options.file.now()
  }

  async run<T>(plan: Plan<T>): Promise<T> {
    if (this.#closing) throw new JournalClosedError(this.path)
    const turn: Turn = { plan }
    await this.#turns.submit(turn)
    if (turn.failed) throw turn.failed.error
    return turn.answer as T
  }

  /**
   * Answers from the state read last when the files did not change since, without the mutex: a
   * write of another process is visible once its rename or append returned, and then the files
   * show it. While a turn of this process is queued or running, or when the files changed, the read
   * takes a turn like a write (so it never sees a write that is applied but not committed).
   */
  async read<T>(read: (state: KvState) => T): Promise<T> {
    if (this.#closing) throw new JournalClosedError(this.path)
    const cache = this.#cache
    if (cache && !this.#turns.busy) {
      const turns = this.#turnsTaken
      if ((await this.#unchanged(cache)) && turns === this.#turnsTaken && !this.#turns.busy && this.#cache === cache)
        return read(cache.state)
    }
    return this.run((state) => {
      const value = read(state)
      return { ops: [], result: () => value }
    })
  }

  /** Whether the files are the version `cache` was read from, and no FileEventJournal holds them. */
  async #unchanged(cache: ReadCache): Promise<boolean> {
    const { fs } = this.#options.file
    const [snapshot, log] = await Promise.all([fs.stat(this.path), fs.stat(logPathOf(this.path))])
    if (cache.snapshot === undefined || fileIdentity(snapshot) !== cache.snapshot || (log?.size ?? 0) !== cache.logFileBytes) return false
    await this.#refuseIfLocked()
    return true
  }

  flush(): Promise<void> {
    return this.#turns.settled()
  }

  close(): Promise<void> {
    this.#closing ??= this.#turns.exclusive(async () => {})
    return this.#closing
  }

  /**
   * Opens: checks nothing else holds the file and reads it whole (a damaged file is refused and
   * left as it is), under the mutex.
   */
  async open(): Promise<void> {
    const mutex = await acquireMutex(this.path, this.#options.mutex)
    try {
      await this.#refuseIfLocked()
      // Under the mutex: the first process of a boot stores the anchor, the others read that one.
      await this.#options.clock?.ready()
      await this.#refresh()
      // A temp file left by a writer that died mid-rewrite; only the mutex holder writes one.
      await removeStrayTemps(this.#options.file.fs, this.path)
    } finally {
      await mutex.release()
    }
  }

  /** One turn: the mutex, the current state, every plan applied, one commit. */
  async #take(turns: Turn[]): Promise<void> {
    this.#turnsTaken++
    const mutex = await acquireMutex(this.path, this.#options.mutex)
    try {
      await this.#refuseIfLocked()
      const state = await this.#refresh()
      const writes: PendingWrite[] = []
      for (const turn of turns) {
        try {
          turn.step = turn.plan(state)
          const { results, pending } = applyPlacedWrite(state, turn.step.ops)
          turn.results = results
          if (pending.changes.length > 0) writes.push(pending)
        } catch (error) {
          turn.failed = { error }
        }
      }
      if (writes.length > 0) await this.#commit(mutex, state, writes)
    } catch (error) {
      // The state may hold writes that did not land: the next turn rereads the files.
      this.#cache = undefined
      throw error
    } finally {
      await mutex.release()
    }
    for (const turn of turns) {
      if (turn.failed || !turn.step) continue
      try {
        turn.answer = turn.step.result(turn.results!)
      } catch (error) {
        turn.failed = { error }
      }
    }
  }

  async #commit(mutex: HeldMutex, state: KvState, writes: PendingWrite[]): Promise<void> {
    // Right before writing: a holder that stalled past staleLockMs lost the mutex and must not write.
    if (!(await mutex.stillHeld())) {
      throw new JournalUnavailableError(
        `${this.path}: this process stalled and its mutex was taken over by another process; nothing was written, try again`,
      )
    }
    try {
      if (this.#options.file.mode === 'appendLog') await this.#append(state, writes)
      else await this.#rewrite(state)
    } catch (error) {
      const outcome = error instanceof AfterRenameError ? 'its outcome is unknown' : 'nothing of it was written'
      throw new JournalUnavailableError(
        `${this.path}: the write could not be committed (${error instanceof Error ? error.message : String(error)}); ${outcome}`,
        error,
      )
    }
  }

  /** Without appendLog: the whole file rewritten; a log another process left is folded in and removed. */
  async #rewrite(state: KvState): Promise<void> {
    const { fs, fsync, format } = this.#options.file
    const cache = this.#cache!
    const snapshot = encodeSnapshot(state, cache.lastSeq, undefined, this.#encoded, format)
    const hasLog = cache.logFileBytes > 0
    // The log is removed only once the snapshot holding its records is durable (I11 of src/crash-safe-file/INVARIANTS.md).
    await writeFileAtomic(fs, this.path, snapshot.chunks, { fsync: fsync || hasLog })
    if (hasLog) await unlinkIfThere(fs, logPathOf(this.path))
    this.#cache = { ...cache, snapshot: fileIdentity(await fs.stat(this.path)), logRecords: 0, logValidBytes: 0, logFileBytes: 0 }
  }

  /** appendLog: one line per write, one append (a torn tail cut first), then a fold when the log is due. */
  async #append(state: KvState, writes: PendingWrite[]): Promise<void> {
    const { fs, fsync, format, compactEvery, compactBytes } = this.#options.file
    const cache = this.#cache!
    const log = await AppendLog.open(fs, logPathOf(this.path), {
      validBytes: cache.logValidBytes,
      lastSeq: cache.lastSeq,
      records: cache.logRecords,
      fsync,
    })
    try {
      await log.append(writes.map((write) => encodeChanges(write.changes)))
      this.#cache = { ...cache, lastSeq: log.lastSeq, logRecords: log.records, logValidBytes: log.size, logFileBytes: log.size }
      if (log.records < compactEvery && log.size < compactBytes) return
      // The writes are in the log already: a failed fold loses nothing, it is tried again after the next append.
      try {
        await foldLog(fs, this.path, encodeSnapshot(state, log.lastSeq, undefined, this.#encoded, format), log)
        this.#cache = { ...this.#cache, snapshot: fileIdentity(await fs.stat(this.path)), logRecords: 0, logValidBytes: 0, logFileBytes: 0 }
        this.compactionError = undefined
      } catch (error) {
        this.compactionError = error
        this.#cache = undefined
      }
    } finally {
      await log.close()
    }
  }

  /** Refuses while a live locked FileEventJournal holds the file: it would overwrite whatever we write. */
  async #refuseIfLocked(): Promise<void> {
    const { fs } = this.#options.file
    // Most turns find no lock file at all: a stat says so for less than a failed read.
    if (!(await fs.stat(lockPathOf(this.path)))) return
    const holder = await lockHolderOf(fs, this.path)
    if (!holder) return
    throw new JournalLockedError(
      this.path,
      holder.pid,
      `${this.path} is held by a FileEventJournal opened with { lock: true } in process ${holder.pid}; ` +
        'a SharedFileEventJournal never writes a file a FileEventJournal holds: close that journal, or open the file with SharedFileEventJournal everywhere',
    )
  }

  /** The current state: the cache if the files did not change, its log's new lines if only the log grew, else the files read whole. */
  async #refresh(): Promise<KvState> {
    const { fs, format } = this.#options.file
    const logPath = logPathOf(this.path)
    const snapshot = fileIdentity(await fs.stat(this.path))
    const logStat = await fs.stat(logPath)
    const logBytes = logStat?.size ?? 0
    const cache = this.#cache
    if (cache && snapshot !== undefined && snapshot === cache.snapshot) {
      if (logBytes === cache.logFileBytes) return cache.state
      if (logBytes > cache.logFileBytes) {
        const grown = await readLogGrowth(fs, this.path, cache)
        if (grown) {
          this.#cache = grown
          return grown.state
        }
      }
    }
    this.#cache = await readWhole(fs, this.path, format)
    return this.#cache.state
  }
}
