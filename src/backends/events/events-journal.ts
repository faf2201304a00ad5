/**
 * One bot scope's journals over an events journal: the inbox as event records of the scope's lane
 * on 'botwa:durable', the outbox and the instances' heartbeats as side entries of the journal's
 * file (written in the same commits), or in a `DurableKv` of their own.
 */
import {
  type Journal,
  type JournalListQuery,
  type JournalWrite,
  type JournalWriteResult,
  type Versioned,
  type WriteLabel,
  type WriteName,
  type Json,
  type KvEntry,
  type KvOp,
  recordIndex,
  recordKey,
  type InboxRecord,
  type RecordKind,
  type RecordOf,
  countByPaging,
  type IndexPosition,
  searchPage,
} from '../../core/backend-internals.js'
import { inboundEventId, inboundLane, toEventRecord, toInboxRecord } from './inbox-mapping.js'
import type { LeasedEventJournal, StorageOp, StorageResult } from '../../events/journal.js'
import type { EventRecord } from '../../events/record.js'

/** Writes that only extend a lease: a FileEventJournal keeps them until its next change is written. */
const HEARTBEATS: ReadonlySet<WriteName> = new Set<WriteName>(['inbox.heartbeat', 'outbox.heartbeat'])

export class EventsJournal implements Journal {
  readonly #events: LeasedEventJournal
  /** The outbox and instances: the sidecar's or the external store's journal of this scope. */
  readonly #side: Journal
  /** Whether the side records live in the journal's own file (written through its storage, with the inbox). */
  readonly #sidecar: boolean

  constructor(
    events: LeasedEventJournal,
    readonly scopeId: string,
    side: Journal,
    sidecar: boolean,
  ) {
    this.#events = events
    this.#side = side
    this.#sidecar = sidecar
  }

  async read<K extends RecordKind>(kind: K, ids: readonly string[]): Promise<(Versioned<RecordOf[K]> | undefined)[]> {
    if (kind !== 'inbox') return this.#side.read(kind, ids)
    const found = await this.#events.storage.read(
      inboundLane(this.scopeId),
      ids.map((id) => inboundEventId(this.scopeId, id)),
    )
    return found.map((event) => event && (versioned(event) as Versioned<RecordOf[K]>))
  }

  async write(name: WriteLabel, writes: readonly JournalWrite[]): Promise<JournalWriteResult[]> {
    const heartbeat = typeof name === 'string' && HEARTBEATS.has(name)
    if (this.#sidecar) {
      // Inbox and side records in one storage write: one commit, one atomic rewrite of the file.
      const results = await this.#events.storage.write(
        writes.map((write) => this.#storageOp(write)),
        { heartbeat },
      )
      return results.map((result, n) => this.#journalResult(writes[n]!.kind, result))
    }
    const inbox = writes.flatMap((write, n) => (write.kind === 'inbox' ? [n] : []))
    const others = writes.flatMap((write, n) => (write.kind === 'inbox' ? [] : [n]))
    const [inboxResults, otherResults] = await Promise.all([
      inbox.length > 0
        ? this.#events.storage.write(
            inbox.map((n) => this.#storageOp(writes[n]!)),
            { heartbeat },
          )
        : [],
      others.length > 0
        ? this.#side.write(
            name,
            others.map((n) => writes[n]!),
          )
        : [],
    ])
    const results: JournalWriteResult[] = new Array(writes.length)
    inbox.forEach((n, i) => (results[n] = this.#journalResult('inbox', inboxResults[i]!)))
    others.forEach((n, i) => (results[n] = otherResults[i]!))
    return results
  }

  async due<K extends RecordKind>(kind: K, until: number, limit: number): Promise<Versioned<RecordOf[K]>[]> {
    if (kind !== 'inbox') return this.#side.due(kind, until, limit)
    return (await this.#events.storage.due(inboundLane(this.scopeId), until, limit)).map(
      (event) => versioned(event) as Versioned<RecordOf[K]>,
    )
  }

  async list<K extends RecordKind>(kind: K, query: JournalListQuery): Promise<Versioned<RecordOf[K]>[]> {
    if (kind !== 'inbox') return this.#side.list(kind, query)
    // The event storage cannot search: the records that hold the text are picked from its pages.
    if (query.search) return searchPage(kind, query, ({ search: _search, ...page }) => this.list(kind, page))
    // Event ids are the inbox ids behind one prefix per scope, so they sort the same way.
    const after = query.after && { stateTime: query.after.stateTime, key: inboundEventId(this.scopeId, query.after.key) }
    const found = await this.#events.storage.listState(inboundLane(this.scopeId), {
      state: query.state,
      limit: query.limit,
      ...(query.before !== undefined && { before: query.before }),
      ...(after && { after }),
    })
    return found.map((event) => versioned(event) as Versioned<RecordOf[K]>)
  }

  count(kind: RecordKind): Promise<Record<string, number>> {
    return kind === 'inbox' ? this.#events.storage.countStates(inboundLane(this.scopeId)) : this.#side.count(kind)
  }

  purge(kind: RecordKind, state: string, olderThan: number, limit: number): Promise<number> {
    return kind === 'inbox'
      ? this.#events.storage.purgeState(inboundLane(this.scopeId), state, olderThan, limit)
      : this.#side.purge(kind, state, olderThan, limit)
  }

  countOlder(kind: RecordKind, state: string, olderThan: number, limit: number): Promise<number> {
    if (kind !== 'inbox') return this.#side.countOlder(kind, state, olderThan, limit)
    const storage = this.#events.storage
    const lane = inboundLane(this.scopeId)
    if (storage.countOlderState) return storage.countOlderState(lane, state, olderThan, limit)
    const page = async (after: IndexPosition | undefined, max: number) =>
      (await storage.listState(lane, { state, before: olderThan, after, limit: max })).map((event) => ({
        stateTime: event.updatedAt,
        key: event.id,
      }))
    return countByPaging(page, limit)
  }

  #storageOp(write: JournalWrite): StorageOp {
    if (write.kind === 'inbox') {
      if ('delete' in write)
        return {
          target: 'event',
          op: 'delete',
          lane: inboundLane(this.scopeId),
          id: inboundEventId(this.scopeId, write.delete),
          expectVersion: write.expectVersion,
        }
      return {
        target: 'event',
        op: 'put',
        record: toEventRecord(this.scopeId, write.record as InboxRecord),
        expectVersion: write.expectVersion,
      }
    }
    return { target: 'side', scope: this.scopeId, op: kvOpOf(write) }
  }

  #journalResult(kind: RecordKind, result: StorageResult): JournalWriteResult {
    if (result.ok) return result
    const current = result.current
    if (!current) return { ok: false, current: undefined }
    if (kind === 'inbox') return { ok: false, current: versioned(current as EventRecord) }
    const entry = current as KvEntry
    return { ok: false, current: { record: entry.value as unknown as RecordOf[RecordKind], version: entry.version } }
  }
}

function versioned(event: EventRecord): Versioned<InboxRecord> {
  return { record: toInboxRecord(event), version: event.version }
}

/** A side record's write as a `DurableKv` op (as `KvDurability` stores it). */
function kvOpOf(write: JournalWrite): KvOp {
  if ('delete' in write) return { op: 'delete', collection: write.kind, key: write.delete, expectVersion: write.expectVersion }
  return {
    op: 'put',
    collection: write.kind,
    key: recordKey(write.kind, write.record),
    expectVersion: write.expectVersion,
    value: write.record as unknown as Json,
    ...recordIndex(write.kind, write.record),
  }
}
