/**
 * `FileKv`: the `DurableKv` of FileDurability. Entries live in memory (a `KvState`) and every
 * committed write is made durable in the journal file before it is acknowledged (I3 of
 * src/crash-safe-file/INVARIANTS.md). Scope views
 * share the one open journal.
 */
import { type DurableKv, type KvEntry, type KvListQuery, type KvOp, type KvWriteResult, ROOT_SCOPE } from '../../core/spi.js'
import { JournalClosedError } from '../../core/errors/errors.js'
import type { DurableState } from '../../crash-safe-file/durable-state.js'
import type { FileJournalStats } from '../../crash-safe-file/journal-stats.js'
import type { CompactionReport } from '../../crash-safe-file/compaction.js'

/** A scope's view of an open journal file. */
export class FileKv implements DurableKv {
  readonly #journal: DurableState
  readonly #scope: string

  /** @internal Use `FileDurability.open`. */
  constructor(journal: DurableState, scope: string = ROOT_SCOPE) {
    this.#journal = journal
    this.#scope = scope
  }

  /** The journal file. */
  get path(): string {
    return this.#journal.path
  }

  /** The journal was opened and not closed. Loading happened in `FileDurability.open`. */
  async start(): Promise<void> {
    if (this.#journal.closed) throw new JournalClosedError(this.#journal.path)
  }

  /** Waits for the writes in flight to commit; the journal stays open (and locked) until `close()`. */
  async stop(): Promise<void> {
    await this.flush()
  }

  /** Resolves once every write and compaction started so far has committed or failed. */
  flush(): Promise<void> {
    return this.#journal.flush()
  }

  async now(): Promise<number> {
    return this.#journal.options.now()
  }

  get(collection: string, keys: readonly string[]): Promise<(KvEntry | undefined)[]> {
    return this.#journal.read(() => keys.map((key) => this.#journal.state.get(this.#scope, collection, key)))
  }

  write(ops: readonly KvOp[]): Promise<KvWriteResult[]> {
    return this.#journal.write(this.#scope, ops)
  }

  due(collection: string, until: number, limit: number): Promise<KvEntry[]> {
    return this.#journal.read(() => this.#journal.state.due(this.#scope, collection, until, limit))
  }

  list(collection: string, query: KvListQuery): Promise<KvEntry[]> {
    return this.#journal.read(() => this.#journal.state.list(this.#scope, collection, query))
  }

  count(collection: string): Promise<Record<string, number>> {
    return this.#journal.read(() => this.#journal.state.count(this.#scope, collection))
  }

  /** Deletes through ordinary versioned writes, so a purge commits (and is logged) like any write. */
  async purge(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    const victims = await this.list(collection, { state, before: olderThan, limit })
    const results = await this.write(victims.map((entry) => ({ op: 'delete', collection, key: entry.key, expectVersion: entry.version })))
    return results.filter((result) => result.ok).length
  }

  countOlder(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    return this.#journal.read(() => this.#journal.state.countOlder(this.#scope, collection, state, olderThan, limit))
  }

  scope(scopeId: string): FileKv {
    return new FileKv(this.#journal, scopeId)
  }

  scopes(): Promise<string[]> {
    return this.#journal.read(() => this.#journal.state.scopes())
  }

  /** Folds the log into the snapshot now. */
  compact(): Promise<CompactionReport> {
    return this.#journal.compact()
  }

  /** Figures about the open journal. */
  stats(): FileJournalStats {
    return this.#journal.stats()
  }

  /** Lets writes in flight commit, folds the log into the snapshot, releases the lock. */
  close(): Promise<void> {
    return this.#journal.close()
  }
}
