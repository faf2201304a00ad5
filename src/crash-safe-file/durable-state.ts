/**
 * The heart of FileDurability: one journal file's entries in memory (a `KvState`), and the commits
 * that make every write durable before it is acknowledged, by snapshot rewrite or log append.
 * Every scope view (`FileKv`) of one open journal shares one `DurableState`.
 */
import { dirname } from 'node:path'
import type { KvOp, KvWriteResult, KvState } from '../core/backend-internals.js'
import { JournalUnavailableError } from '../core/errors/errors.js'
import { AppendLog, logPathOf } from './append-log.js'
import { AfterRenameError, removeStrayTemps, writeFileAtomic } from './atomic-snapshot.js'
import { refuseCall } from './call-refusal.js'
import { encodeChanges } from './changes.js'
import { foldLeftoverLog, type CompactionReport } from './compaction.js'
import { DIRECTORY_MODE } from './fs.js'
import { GroupCommit } from './group-commit.js'
import { acquireLock, type HeldLock } from './lock-file.js'
import { FILE_LIMITS, type ResolvedFileOptions } from './options.js'
import type { FileJournalStats } from './journal-stats.js'
import { loadJournal, type LoadedJournal } from './recovery.js'
import { applyPlacedWrite, overlayOf, rollBack, type PendingWrite, type PlacedOp } from './pending-writes.js'
import { Folds } from './fold-beside.js'
import { encodeSnapshot, type SnapshotEncodingCache } from './snapshot-format.js'
import { UncommittedWrites } from './uncommitted-writes.js'

/** Times a read is made again because commits it saw failed, before it gives up. */
const READ_ATTEMPTS_MAX = 3

/** An open journal file: state, lock and commits. */
export class DurableState {
  readonly path: string
  readonly state: KvState
  readonly options: ResolvedFileOptions
  readonly #lock: HeldLock | undefined
  readonly #commits: GroupCommit<PendingWrite>
  #log: AppendLog | undefined
  /** What the log held at open, for a lazily opened writer. */
  #logAtOpen: { validBytes: number; records: number }
  #lastSeq: number
  #logSeq: number
  /** The folds that run beside the writes (appendLog mode, fold-beside.ts). */
  readonly #folds: Folds
  #closing: Promise<void> | undefined
  readonly #uncommitted = new UncommittedWrites()
  /** Why the journal can take no more calls: a failed commit whose outcome on disk is unknown. */
  #broken: string | undefined
  /** Encoded snapshot lines by entry (snapshot-format.ts), from the snapshot read at open on. */
  readonly #encoded: SnapshotEncodingCache

  private constructor(
    path: string,
    options: ResolvedFileOptions,
    loaded: LoadedJournal,
    lock: HeldLock | undefined,
    encoded: SnapshotEncodingCache = new WeakMap(),
  ) {
    this.path = path
    this.#encoded = encoded
    this.options = options
    this.state = loaded.state
    this.#lock = lock
    this.#lastSeq = loaded.lastSeq
    this.#logSeq = loaded.snapshotLogSeq
    this.#logAtOpen = { validBytes: loaded.log?.validBytes ?? 0, records: loaded.log?.records.length ?? 0 }
    this.#commits = new GroupCommit<PendingWrite>({
      // A snapshot rewrite writes the whole state, so it takes every queued write (I6).
      batchMax: options.mode === 'appendLog' ? FILE_LIMITS.appendBatchMax : Number.POSITIVE_INFINITY,
      commit: (writes) => (options.mode === 'appendLog' ? this.#append(writes) : this.#rewrite(writes)),
      onFailure: (writes, error) => this.#commitFailed(writes, error),
    })
    const { fs, format } = options
    const every = { records: options.compactEvery, bytes: options.compactBytes }
    this.#folds = new Folds(every, {
      fs,
      path,
      format,
      state: this.state,
      commits: this.#commits,
      encoded,
      log: () => this.#log,
      logSeq: () => this.#logSeq,
      broken: () => this.#broken,
      folded: (logSeq) => (this.#logSeq = logSeq),
      replaced: (log) => (this.#log = log),
      broke: (reason) => (this.#broken = reason),
    })
  }

  /**
   * Opens a journal: the lock (unless read-only), then the files loaded and checked (refused with
   * every file as it was, I8/I9), then leftovers tidied: a torn log tail cut, stray temps removed,
   * and in snapshot mode a leftover log folded into the snapshot.
   */
  static async open(path: string, options: ResolvedFileOptions): Promise<DurableState> {
    const { fs } = options
    if (options.readOnly) return new DurableState(path, options, await loadJournal(fs, path, options.format), undefined)
    await fs.mkdir(dirname(path), DIRECTORY_MODE)
    const lock = options.lock ? await acquireLock(fs, path) : undefined
    try {
      // A read-only open never folds: only a writable one keeps the snapshot's lines as read.
      const encoded: SnapshotEncodingCache = new WeakMap()
      const loaded = await loadJournal(fs, path, options.format, encoded)
      const opened = new DurableState(path, options, loaded, lock, encoded)
      await removeStrayTemps(fs, path)
      await removeStrayTemps(fs, logPathOf(path)) // a log being replaced after a fold (append-log.ts)
      await opened.#tidyLog(loaded)
      return opened
    } catch (error) {
      await lock?.release().catch(() => {}) // the open's own error is the one to report
      throw error
    }
  }

  /** Applies `ops` as compare-and-sets and resolves once they are committed (I3, I4). */
  write(scope: string, ops: readonly KvOp[]): Promise<KvWriteResult[]> {
    return this.writePlaced(ops.map((op) => ({ scope, op })))
  }

  /**
   * `write` for ops that each name their scope. The ops are applied before this returns its promise
   * (no await comes first), so a caller that computed them from `state` in the same tick writes
   * atomically against what it read.
   */
  async writePlaced(ops: readonly PlacedOp[]): Promise<KvWriteResult[]> {
    // No await before the ops are applied: writes apply, and commit, in call order (I6).
    if (this.#closing || this.options.readOnly || this.#broken) await this.#refuseWrite()
    const { results, pending } = applyPlacedWrite(this.state, ops)
    // Submitted even without changes: a conflict result may show a write not committed yet (I4).
    const committed = this.#commits.submit(pending)
    this.#uncommitted.add(committed)
    try {
      await committed
    } catch (error) {
      // Rolled back already (I5), unless the journal broke: then the outcome is unknown.
      const outcome = this.#broken ? `its outcome is unknown (${this.#broken}); reopen the journal` : 'nothing of it was applied'
      const reason = error instanceof Error ? error.message : String(error)
      throw new JournalUnavailableError(`${this.path}: the write could not be committed (${reason}); ${outcome}`, error)
    } finally {
      this.#uncommitted.settled()
    }
    return results
  }

  /**
   * Runs `read` now and resolves once every write it could see is committed (I4): it waits for the
   * writes applied before it, never for later ones (no starvation) nor for a fold alone. If one of
   * those commits failed, its writes were rolled back and the read is made again.
   */
  async read<T>(read: () => T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (this.#closing || this.#broken) await this.#refuseWrite()
      const value = read()
      if (this.#uncommitted.none) return value
      const rollBacks = this.#uncommitted.rollBacks
      await this.#uncommitted.lastSettled
      if (this.#uncommitted.rollBacks === rollBacks) return value
      if (attempt >= READ_ATTEMPTS_MAX) throw new JournalUnavailableError(`${this.path}: commits keep failing; the read was not answered`)
    }
  }

  /**
   * Applies `ops` in memory only, with no commit of their own: they reach the file with the next
   * snapshot (snapshot mode only). For changes worth nothing after a crash, such as an events
   * journal's lease heartbeats; they are observed before they are durable (an exception to I4).
   * Resolves once the writes applied before them are committed, like a read.
   */
  async writeDeferred(ops: readonly PlacedOp[]): Promise<KvWriteResult[]> {
    if (this.options.mode !== 'snapshot') return this.writePlaced(ops)
    if (this.#closing || this.options.readOnly || this.#broken) await this.#refuseWrite()
    const { results } = applyPlacedWrite(this.state, ops)
    return this.read(() => results)
  }

  /** Resolves once every write made so far is committed or failed, and the fold they started with it. */
  async flush(): Promise<void> {
    await this.#commits.settled()
    await this.#folds.settled()
  }

  /** Folds the log into the snapshot now (appendLog mode; a no-op in snapshot mode, which keeps no log). */
  async compact(): Promise<CompactionReport> {
    if (this.#closing || this.options.readOnly || this.#broken) await this.#refuseWrite()
    return this.#folds.run()
  }

  stats(): FileJournalStats {
    return {
      entries: this.state.size,
      logRecords: this.#log?.records ?? this.#logAtOpen.records,
      logBytes: this.#log?.size ?? this.#logAtOpen.validBytes,
      logSeq: this.#logSeq,
      compactionError: this.#folds.error,
    }
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closing !== undefined
  }

  /**
   * Refuses new calls, lets the writes already made commit, folds the log into the snapshot and
   * releases the lock. Idempotent. The lock is released even if the fold fails (the log then keeps
   * every record and is replayed by the next open).
   */
  close(): Promise<void> {
    // A fold that is running ends first: its last step replaces the log this close folds.
    this.#closing ??= this.#folds
      .settled()
      .then(() => this.#commits.exclusive(() => this.#closeNow()))
      .catch((error: unknown) => {
        // A file system's own error (ENOSPC on a full disk) names no file: say which journal, and what it means.
        const reason = error instanceof Error ? error.message : String(error)
        throw new JournalUnavailableError(
          `${this.path}: close() could not fold the log into the snapshot (${reason}); every acknowledged write is still in its log, which the next open replays`,
          error,
        )
      })
      .finally(() => this.#lock?.release())
    return this.#closing
  }

  /** The last commit: the log folded into the snapshot (a blocking fold: nothing is written any more), and removed. */
  async #closeNow(): Promise<void> {
    if (this.options.readOnly) return
    try {
      // A broken journal is left as it is on disk; the next open reads what is there.
      if (this.#log && this.#log.records > 0 && !this.#broken) await this.#folds.foldAlone()
    } finally {
      await this.#log?.close()
    }
    if (this.#log && !this.#broken) await foldLeftoverLog(this.options.fs, this.path, undefined)
  }

  /** Rejects a call to a closed, broken or read-only journal, naming a live holder if there is one (I15). */
  #refuseWrite(): Promise<never> {
    return refuseCall(this.options.fs, this.path, { closed: this.#closing !== undefined, broken: this.#broken })
  }

  /** Snapshot mode: one atomic rewrite for the whole batch (I2, I6). */
  async #rewrite(writes: PendingWrite[]): Promise<void> {
    if (!writes.some((write) => write.changes.length > 0)) return
    // Encoded before the first await: the state now holds exactly the batch and what was committed.
    const snapshot = encodeSnapshot(this.state, this.#logSeq, overlayOf(this.#commits.queuedItems()), this.#encoded, this.options.format)
    await writeFileAtomic(this.options.fs, this.path, snapshot.chunks, { fsync: this.options.fsync })
  }

  /** appendLog mode: one line per write, one append, one fsync (I3, I6, I13). */
  async #append(writes: PendingWrite[]): Promise<void> {
    const payloads = writes.filter((write) => write.changes.length > 0).map((write) => encodeChanges(write.changes))
    if (payloads.length === 0) return
    const log = (this.#log ??= await AppendLog.open(this.options.fs, logPathOf(this.path), {
      ...this.#logAtOpen,
      lastSeq: this.#lastSeq,
      fsync: this.options.fsync,
    }))
    await log.append(payloads)
    this.#lastSeq = log.lastSeq
    this.#folds.afterAppend(log)
  }

  /**
   * A commit failed (I5): its writes and those queued behind it are rolled back, unless the disk
   * may hold them anyway (a snapshot renamed before its directory fsync failed, a log that could
   * not be cut back); then the journal takes no more calls until it is reopened.
   */
  #commitFailed(writes: PendingWrite[], error: unknown): void {
    if (error instanceof AfterRenameError) {
      this.#broken = 'a snapshot replaced the journal file but its directory could not be fsynced'
      return // memory already matches the file: nothing to roll back
    }
    if (this.#log?.broken) this.#broken = 'a failed log append could not be cut back'
    this.#uncommitted.rolledBack()
    rollBack(this.state, writes)
  }

  /** After a writable open: cut a torn tail, drop a log the snapshot already holds, or fold it in snapshot mode. */
  async #tidyLog(loaded: LoadedJournal): Promise<void> {
    const log = loaded.log
    if (!log) return
    if (this.options.mode === 'snapshot') {
      // Snapshot mode keeps no log: fold what it adds (I10, I11), then remove it.
      const snapshot =
        loaded.replayed > 0 ? encodeSnapshot(this.state, loaded.lastSeq, new Map(), this.#encoded, this.options.format) : undefined
      await foldLeftoverLog(this.options.fs, this.path, snapshot)
      this.#logSeq = loaded.lastSeq
      this.#logAtOpen = { validBytes: 0, records: 0 }
      return
    }
    // Records the snapshot already holds are dropped; a torn tail is cut (I8): both by AppendLog.open.
    this.#logAtOpen = loaded.replayed === 0 ? { validBytes: 0, records: 0 } : { validBytes: log.validBytes, records: log.records.length }
    this.#log = await AppendLog.open(this.options.fs, logPathOf(this.path), {
      ...this.#logAtOpen,
      lastSeq: this.#lastSeq,
      fsync: this.options.fsync,
    })
  }
}
