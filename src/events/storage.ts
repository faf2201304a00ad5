/**
 * The storage part of a file journal (`EventStorage`): versioned compare-and-set of records and of
 * side entries over a `JournalCore`, and the per-lane indexes. `eventsDurability` keeps the bot's
 * inbox here as records and its outbox as side entries, in the same file and the same commits.
 */
import { type DurableKv, type KvEntry, type KvListQuery, type KvOp, type KvWriteResult, ROOT_SCOPE } from '../core/durability/journal/kv.js'
import type { PlacedOp } from '../crash-safe-file/pending-writes.js'
import { findEntry, lanesIn, type JournalCore } from './core.js'
import type { EventStorage, StorageOp, StorageResult } from './journal.js'
import { putRecordOp, takeSeqs } from './record-ops.js'
import { EVENTS_COLLECTION, laneKey, recordOf, sideKey, sideOfKey, type EventLane, type EventRecord } from './record.js'

/** `EventStorage` over a journal core. */
export class CoreStorage implements EventStorage {
  readonly sidecar: DurableKv

  constructor(private readonly core: JournalCore) {
    this.sidecar = new SidecarKv(core, this, ROOT_SCOPE)
  }

  write(ops: readonly StorageOp[], options: { heartbeat?: boolean } = {}): Promise<StorageResult[]> {
    return this.core.run(
      (state) => {
        // Ops refused before they reach the state: an insert of an id another lane holds.
        const refused = new Map<number, StorageResult>()
        const placed: PlacedOp[] = []
        const inserts = ops.filter(
          (op) => op.target === 'event' && op.op === 'put' && op.expectVersion === 0 && op.record.seq === undefined,
        ).length
        const seqs = inserts > 0 ? takeSeqs(state, inserts) : undefined
        let nextSeq = seqs?.first ?? 0
        ops.forEach((op, index) => {
          if (op.target === 'side') {
            placed.push({ scope: sideKey(op.scope), op: op.op })
          } else if (op.op === 'delete') {
            placed.push({
              scope: laneKey(op.lane),
              op: { op: 'delete', collection: EVENTS_COLLECTION, key: op.id, expectVersion: op.expectVersion },
            })
          } else {
            const elsewhere = op.expectVersion === 0 ? findEntry(state, op.record.id) : undefined
            if (elsewhere && elsewhere.key !== laneKey(op.record)) {
              refused.set(index, { ok: false, current: recordOf(elsewhere.entry) })
              return
            }
            const stored = state.get(laneKey(op.record), EVENTS_COLLECTION, op.record.id)
            const seq = op.record.seq ?? (op.expectVersion === 0 ? nextSeq++ : ((stored?.value as { seq?: number } | undefined)?.seq ?? 0))
            placed.push(putRecordOp({ ...op.record, seq }, op.expectVersion))
          }
        })
        if (seqs) placed.push(seqs.op)
        return {
          ops: placed,
          result(results: KvWriteResult[]): StorageResult[] {
            let next = 0
            return ops.map((op, index) => {
              const early = refused.get(index)
              if (early) return early
              const result = results[next++]!
              if (result.ok || op.target === 'side') return result
              return { ok: false, current: result.current && recordOf(result.current) }
            })
          },
        }
      },
      { deferred: options.heartbeat === true },
    )
  }

  read(lane: EventLane, ids: readonly string[]): Promise<(EventRecord | undefined)[]> {
    return this.core.read((state) =>
      ids.map((id) => {
        const entry = state.get(laneKey(lane), EVENTS_COLLECTION, id)
        return entry && recordOf(entry)
      }),
    )
  }

  due(lane: EventLane, until: number, limit: number): Promise<EventRecord[]> {
    return this.core.read((state) => state.due(laneKey(lane), EVENTS_COLLECTION, until, limit).map(recordOf))
  }

  listState(lane: EventLane, query: KvListQuery): Promise<EventRecord[]> {
    return this.core.read((state) => state.list(laneKey(lane), EVENTS_COLLECTION, query).map(recordOf))
  }

  countStates(lane: EventLane): Promise<Record<string, number>> {
    return this.core.read((state) => state.count(laneKey(lane), EVENTS_COLLECTION))
  }

  purgeState(lane: EventLane, stateName: string, olderThan: number, limit: number): Promise<number> {
    const key = laneKey(lane)
    return this.core.run((state) => ({
      ops: state.list(key, EVENTS_COLLECTION, { state: stateName, before: olderThan, limit }).map((entry) => ({
        scope: key,
        op: { op: 'delete' as const, collection: EVENTS_COLLECTION, key: entry.key, expectVersion: entry.version },
      })),
      result: (results) => results.filter((result) => result.ok).length,
    }))
  }

  countOlderState(lane: EventLane, stateName: string, olderThan: number, limit: number): Promise<number> {
    return this.core.read((state) => state.countOlder(laneKey(lane), EVENTS_COLLECTION, stateName, olderThan, limit))
  }

  scopes(channel: string): Promise<string[]> {
    return this.core.read((state) =>
      lanesIn(state).flatMap(({ lane }) => (lane.channel === channel && lane.scope !== null ? [lane.scope] : [])),
    )
  }

  flush(): Promise<void> {
    return this.core.flush()
  }
}

/**
 * Side entries of the journal's file as a `DurableKv`: the outbox (and the instances' heartbeats)
 * of `eventsDurability`, written in the same commits as the records.
 */
class SidecarKv implements DurableKv {
  constructor(
    private readonly core: JournalCore,
    private readonly storage: CoreStorage,
    private readonly scopeId: string,
  ) {}

  async start(): Promise<void> {}
  async stop(): Promise<void> {
    await this.core.flush()
  }

  async now(): Promise<number> {
    return this.core.now()
  }

  get(collection: string, keys: readonly string[]): Promise<(KvEntry | undefined)[]> {
    const scope = sideKey(this.scopeId)
    return this.core.read((state) => keys.map((key) => copy(state.get(scope, collection, key))))
  }

  async write(ops: readonly KvOp[]): Promise<KvWriteResult[]> {
    return (await this.storage.write(ops.map((op) => ({ target: 'side' as const, scope: this.scopeId, op })))) as KvWriteResult[]
  }

  due(collection: string, until: number, limit: number): Promise<KvEntry[]> {
    return this.core.read((state) => state.due(sideKey(this.scopeId), collection, until, limit).map((entry) => copy(entry)!))
  }

  list(collection: string, query: KvListQuery): Promise<KvEntry[]> {
    return this.core.read((state) => state.list(sideKey(this.scopeId), collection, query).map((entry) => copy(entry)!))
  }

  count(collection: string): Promise<Record<string, number>> {
    return this.core.read((state) => state.count(sideKey(this.scopeId), collection))
  }

  /** Deletes in one atomic step with the read that chose the victims. */
  purge(collection: string, stateName: string, olderThan: number, limit: number): Promise<number> {
    const scope = sideKey(this.scopeId)
    return this.core.run((state) => ({
      ops: state
        .list(scope, collection, { state: stateName, before: olderThan, limit })
        .map((entry) => ({ scope, op: { op: 'delete' as const, collection, key: entry.key, expectVersion: entry.version } })),
      result: (results) => results.filter((result) => result.ok).length,
    }))
  }

  countOlder(collection: string, stateName: string, olderThan: number, limit: number): Promise<number> {
    return this.core.read((state) => state.countOlder(sideKey(this.scopeId), collection, stateName, olderThan, limit))
  }

  scope(scopeId: string): DurableKv {
    return new SidecarKv(this.core, this.storage, scopeId)
  }

  scopes(): Promise<string[]> {
    return this.core.read((state) =>
      state
        .scopes()
        .flatMap((key) => sideOfKey(key) ?? [])
        .filter((scope) => scope !== ROOT_SCOPE),
    )
  }
}

function copy(entry: KvEntry | undefined): KvEntry | undefined {
  return entry === undefined ? undefined : structuredClone(entry)
}
