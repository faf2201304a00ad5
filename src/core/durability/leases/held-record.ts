/**
 * A record this process holds a lease on. Every write of it goes through `update`, one at a
 * time, so the owner's transitions and the heartbeat never race each other for the version. A
 * failed compare-and-set means the lease was taken over (it expired, or an operator changed the
 * record): the record is then `lost`, and the holder's completion is counted in `staleLeases`.
 */
import type { Journal, JournalWriteResult } from '../journal/backend.js'
import type { WriteLabel, WriteName } from '../journal/crash-points.js'
import { recordKey, type InboxRecord, type OutboxRecord } from '../journal/records.js'

type WorkKind = 'inbox' | 'outbox'
type WorkRecord<K extends WorkKind> = K extends 'inbox' ? InboxRecord : OutboxRecord

/** One record's change in a write of several held records (`HeldRecord.updateTogether`). */
export interface HeldUpdate {
  held: HeldRecord
  change(record: InboxRecord | OutboxRecord): InboxRecord | OutboxRecord
}

/** What an update of a lost record resolves to. */
const LOST: Promise<boolean> = Promise.resolve(false)

export class HeldRecord<K extends WorkKind = WorkKind> {
  #record: WorkRecord<K>
  #version: number
  #lost = false
  /** The last update, while it may still be running; later ones wait for it (failed or not). */
  #last: Promise<unknown> | undefined
  #pending = 0

  constructor(
    private readonly journal: Journal,
    readonly kind: K,
    record: WorkRecord<K>,
    version: number,
  ) {
    this.#record = record
    this.#version = version
  }

  get record(): WorkRecord<K> {
    return this.#record
  }

  get id(): string {
    return recordKey<'inbox' | 'outbox'>(this.kind, this.#record)
  }

  get lost(): boolean {
    return this.#lost
  }

  /** Writes the changed record under the version last seen; false when the lease was lost. */
  update(name: WriteName, change: (record: WorkRecord<K>) => WorkRecord<K>): Promise<boolean> {
    // With no update in flight (nearly always) it starts at once: no chained promises per write.
    const run = () => this.#write(name, change)
    const next = this.#pending === 0 || !this.#last ? run() : this.#last.then(run, run)
    this.#pending++
    this.#last = next
    return next
  }

  /**
   * Updates several held records in one journal write (one round trip), each its own compare-and-set
   * under its own version, once no earlier update of any of them is in flight. One result per update:
   * false where that record's lease was lost.
   */
  static updateTogether(name: WriteLabel, updates: readonly HeldUpdate[]): Promise<boolean[]> {
    const earlier = updates.flatMap(({ held }) => (held.#pending > 0 && held.#last ? [held.#last] : []))
    const run = () => HeldRecord.#writeTogether(name, updates)
    const next = earlier.length === 0 ? run() : Promise.allSettled(earlier).then(run)
    for (const { held } of updates) {
      held.#pending++
      held.#last = next
    }
    return next
  }

  static #writeTogether(name: WriteLabel, updates: readonly HeldUpdate[]): Promise<boolean[]> {
    const live = updates.filter(({ held }) => !held.#lost)
    const settled = () => {
      for (const { held } of updates) held.#pending--
    }
    let records: (InboxRecord | OutboxRecord)[]
    let written: Promise<JournalWriteResult[]>
    try {
      records = live.map(({ held, change }) => change(held.#record))
      const writes = live.map(({ held }, n) => ({ kind: held.kind, record: records[n]!, expectVersion: held.#version }))
      written = live.length === 0 ? Promise.resolve([]) : updates[0]!.held.journal.write(name, writes as never)
    } catch (error) {
      settled()
      return Promise.reject(error)
    }
    return written.then(
      (results) => {
        settled()
        live.forEach(({ held }, n) => held.#landed(results[n]!, records[n]!))
        return updates.map(({ held }) => !held.#lost)
      },
      (error: unknown) => {
        settled()
        throw error
      },
    )
  }

  /** One update: a then() on the journal write, not an async function (its frame was most of a write's garbage). */
  #write(name: WriteName, change: (record: WorkRecord<K>) => WorkRecord<K>): Promise<boolean> {
    let record: WorkRecord<K>
    let written: Promise<JournalWriteResult[]>
    try {
      if (this.#lost) {
        this.#pending--
        return LOST
      }
      record = change(this.#record)
      written = this.journal.write(name, [{ kind: this.kind, record, expectVersion: this.#version }])
    } catch (error) {
      this.#pending--
      return Promise.reject(error)
    }
    return written.then(
      ([result]) => {
        this.#pending--
        return this.#landed(result!, record)
      },
      (error: unknown) => {
        this.#pending--
        throw error
      },
    )
  }

  /** Takes in what a write of `record` came back with: the new version, or the lease lost. */
  #landed(result: JournalWriteResult, record: InboxRecord | OutboxRecord): boolean {
    if (!result.ok) {
      this.#lost = true
      return false
    }
    this.#record = record as WorkRecord<K>
    this.#version = result.version
    return true
  }
}
