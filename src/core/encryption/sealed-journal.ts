/**
 * A journal whose records' content is sealed before the backend underneath sees it, and opened
 * when it is read back. It sits between the engine (or a tool) and any backend's journal, so every
 * backend stores sealed records without knowing it.
 *
 * A record the key ring cannot open (its key is not configured, another key sits under its id, or
 * the value was altered or moved), or one in clear under `requireSealed`, is handled by one of two
 * policies:
 * - `refuse` (a bot): the record is never given to the engine, so it is never run, charged or
 *   dead-lettered. A read that names it rejects with `EncryptionKeyMissingError`; `due` and `list`
 *   pass over it and report it once.
 * - `keep` (an operator's tool): the record is given with its content still sealed, so it can be
 *   listed, shown, replayed or retried (a rewrite keeps the sealed content as it is).
 * Under both, a purge never deletes it.
 */
import type { Journal, JournalListQuery, JournalWrite, JournalWriteResult, Versioned } from '../durability/journal/backend.js'
import type { WriteLabel, WriteName } from '../durability/journal/crash-points.js'
import { recordIndex, recordKey, type RecordKind, type RecordOf } from '../durability/journal/records.js'
import type { UnreadableValueError } from './encryption-errors.js'
import { holdsText } from '../durability/journal/record-text.js'
import { searchPage } from '../durability/journal/search-pages.js'
import { ENCRYPTION_LIMITS } from './limits.js'
import type { RecordSealer } from './record-sealer.js'

/** What to do with a record the key ring cannot open. */
export type UnreadablePolicy = 'refuse' | 'keep'

/** How a sealed journal treats what it cannot open. */
export interface SealedJournalOptions {
  unreadable: UnreadablePolicy
  /** Told of each record passed over (policy `refuse`) or kept back from a purge. */
  report(error: UnreadableValueError): void
  /** The name of the writes a purge makes (record by record, so nothing unreadable goes). */
  purgeWrite: WriteName
  /** The scope content is bound to: the journal's, or '' on a backend without scopes (one space, whatever scope a reader names). */
  boundScope: string
}

export class SealedJournal implements Journal {
  constructor(
    private readonly inner: Journal,
    private readonly sealer: RecordSealer,
    private readonly options: SealedJournalOptions,
  ) {}

  get scopeId(): string {
    return this.inner.scopeId
  }

  async read<K extends RecordKind>(kind: K, ids: readonly string[]): Promise<(Versioned<RecordOf[K]> | undefined)[]> {
    return (await this.inner.read(kind, ids)).map((found) => found && this.#given(kind, found))
  }

  write(name: WriteLabel, writes: readonly JournalWrite[]): Promise<JournalWriteResult[]> {
    let sealed: JournalWrite[]
    try {
      sealed = writes.map((write) =>
        'delete' in write ? write : { ...write, record: this.sealer.seal(this.options.boundScope, write.kind, write.record) },
      )
    } catch (error) {
      return Promise.reject(error)
    }
    return this.inner
      .write(name, sealed)
      .then((results) =>
        results.every((result) => result.ok)
          ? results
          : results.map((result, n) =>
              result.ok || !result.current ? result : { ok: false, current: this.#given(writes[n]!.kind, result.current) },
            ),
      )
  }

  async due<K extends RecordKind>(kind: K, until: number, limit: number): Promise<Versioned<RecordOf[K]>[]> {
    if (this.options.unreadable === 'keep') return (await this.inner.due(kind, until, limit)).map((found) => this.#given(kind, found))
    // Records passed over still sit first in the due index: ask for as many more as were passed over.
    for (let ask = limit; ;) {
      const page = await this.inner.due(kind, until, ask)
      const readable = this.#readable(kind, page)
      const passedOver = page.length - readable.length
      if (readable.length >= limit || page.length < ask || passedOver >= ENCRYPTION_LIMITS.unreadableScanMax)
        return readable.slice(0, limit)
      ask = limit + passedOver
    }
  }

  async list<K extends RecordKind>(kind: K, query: JournalListQuery): Promise<Versioned<RecordOf[K]>[]> {
    if (query.search) return this.#search(kind, query, query.search)
    if (this.options.unreadable === 'keep') return (await this.inner.list(kind, query)).map((found) => this.#given(kind, found))
    const out: Versioned<RecordOf[K]>[] = []
    let after = query.after
    for (let passedOver = 0; ;) {
      const want = query.limit - out.length
      const page = await this.inner.list(kind, { ...query, after, limit: want })
      const readable = this.#readable(kind, page)
      out.push(...readable)
      passedOver += page.length - readable.length
      if (out.length >= query.limit || page.length < want || passedOver >= ENCRYPTION_LIMITS.unreadableScanMax) return out
      after = cursorOf(kind, page.at(-1)!.record)
    }
  }

  count(kind: RecordKind): Promise<Record<string, number>> {
    return this.inner.count(kind)
  }

  /** Counted underneath: a record kept back from a purge (its key missing) is still expired and still there. */
  countOlder(kind: RecordKind, state: string, olderThan: number, limit: number): Promise<number> {
    return this.inner.countOlder(kind, state, olderThan, limit)
  }

  /**
   * Deletes up to `limit` records of `state` older than `olderThan`, each by compare-and-set on the
   * version just read, passing over those the ring cannot open: a record whose key is missing is
   * never purged, whichever the policy.
   */
  async purge(kind: RecordKind, state: string, olderThan: number, limit: number): Promise<number> {
    const deletable: Versioned<RecordOf[RecordKind]>[] = []
    let after: { stateTime: number; key: string } | undefined
    for (let passedOver = 0; deletable.length < limit && passedOver < ENCRYPTION_LIMITS.unreadableScanMax;) {
      const want = limit - deletable.length
      const page = await this.inner.list(kind, { state, before: olderThan, after, limit: want })
      for (const found of page) {
        const unreadable = this.sealer.unreadable(kind, found.record)
        if (unreadable) {
          passedOver++
          this.options.report(unreadable)
        } else deletable.push(found)
      }
      if (page.length < want) break
      after = cursorOf(kind, page.at(-1)!.record)
    }
    if (deletable.length === 0) return 0
    const results = await this.inner.write(
      this.options.purgeWrite,
      deletable.map(({ record, version }) => ({ kind, delete: recordKey(kind, record), expectVersion: version })),
    )
    return results.filter((result) => result.ok).length
  }

  /**
   * A search: the journal underneath gives the records that hold the text and those whose content
   * is sealed; those are opened and judged here. A record the ring cannot open is reported (so a
   * tool says how many it could not search) and left out, whichever the policy.
   */
  #search<K extends RecordKind>(kind: K, query: JournalListQuery, text: string): Promise<Versioned<RecordOf[K]>[]> {
    return searchPage(
      kind,
      query,
      (page) => this.inner.list(kind, page),
      (found) => {
        const opened = this.sealer.open(this.options.boundScope, kind, found.record)
        if (opened.unreadable) {
          this.options.report(opened.unreadable)
          return undefined
        }
        if (!holdsText(kind, opened.record, text)) return undefined
        return opened.record === found.record ? found : { record: opened.record, version: found.version }
      },
    )
  }

  /** The record as this journal gives it: opened, or (policy `keep`) with what cannot be opened left sealed. */
  #given<K extends RecordKind>(kind: K, found: Versioned<RecordOf[K]>): Versioned<RecordOf[K]> {
    const opened = this.sealer.open(this.options.boundScope, kind, found.record)
    if (opened.unreadable && this.options.unreadable === 'refuse') throw opened.unreadable
    return opened.record === found.record ? found : { record: opened.record, version: found.version }
  }

  /** The records of a page the ring can open, opened; the others are reported and left out. */
  #readable<K extends RecordKind>(kind: K, page: readonly Versioned<RecordOf[K]>[]): Versioned<RecordOf[K]>[] {
    const out: Versioned<RecordOf[K]>[] = []
    for (const found of page) {
      const opened = this.sealer.open(this.options.boundScope, kind, found.record)
      if (opened.unreadable) this.options.report(opened.unreadable)
      else out.push(opened.record === found.record ? found : { record: opened.record, version: found.version })
    }
    return out
  }
}

/** Where a page that ended at `record` goes on from. */
function cursorOf<K extends RecordKind>(kind: K, record: RecordOf[K]): { stateTime: number; key: string } {
  return { stateTime: recordIndex(kind, record).stateTime, key: recordKey(kind, record) }
}
