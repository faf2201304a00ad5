/**
 * The `LeasedEventJournal` verbs, written once over a `JournalCore`: `FileEventJournal` and
 * `SharedFileEventJournal` differ only in how their core commits.
 */
import { findEntry, type JournalCore } from './core.js'
import type {
  AppendInput,
  AppendResult,
  ClaimOptions,
  ClaimRef,
  EventListQuery,
  EventPurgeQuery,
  EventStorage,
  FailOptions,
  LeasedEventJournal,
  ReplayQuery,
} from './journal.js'
import { appendPlan } from './append-plan.js'
import { claimPlan, completePlan, failPlan, heartbeatPlan } from './lease-plans.js'
import { countRecords, listRecords, purgePlan, replayPlan } from './query-plans.js'
import { recordOf, type EventRecord } from './record.js'
import { CoreStorage } from './storage.js'

/** A journal file's verbs over its core. */
export abstract class CoreJournal implements LeasedEventJournal {
  abstract readonly writers: 'locked' | 'shared' | 'read-only' | 'unguarded'
  readonly storage: EventStorage
  /** @internal */
  protected readonly core: JournalCore

  protected constructor(core: JournalCore) {
    this.core = core
    this.storage = new CoreStorage(core)
  }

  /** The journal file. */
  get path(): string {
    return this.core.path
  }

  get name(): string {
    return this.core.path
  }

  get closed(): boolean {
    return this.core.closed
  }

  async now(): Promise<number> {
    return this.core.now()
  }

  append(input: AppendInput): Promise<AppendResult>
  append(inputs: readonly AppendInput[]): Promise<AppendResult[]>
  async append(inputs: AppendInput | readonly AppendInput[]): Promise<AppendResult | AppendResult[]> {
    const list = Array.isArray(inputs) ? (inputs as readonly AppendInput[]) : [inputs as AppendInput]
    const results = list.length === 0 ? [] : await this.core.run(appendPlan(list, this.core.now()))
    return Array.isArray(inputs) ? results : results[0]!
  }

  get(id: string): Promise<EventRecord | undefined>
  get(ids: readonly string[]): Promise<(EventRecord | undefined)[]>
  async get(ids: string | readonly string[]): Promise<EventRecord | undefined | (EventRecord | undefined)[]> {
    const list = typeof ids === 'string' ? [ids] : ids
    const found = await this.core.read((state) =>
      list.map((id) => {
        const hit = findEntry(state, id)
        return hit && recordOf(hit.entry)
      }),
    )
    return typeof ids === 'string' ? found[0] : found
  }

  list(query: EventListQuery = {}): Promise<EventRecord[]> {
    return this.core.read((state) => listRecords(state, query))
  }

  replay(query: ReplayQuery | string | readonly string[]): Promise<EventRecord[]> {
    const resolved: ReplayQuery =
      typeof query === 'string' ? { ids: [query] } : Array.isArray(query) ? { ids: query as readonly string[] } : (query as ReplayQuery)
    return this.core.run(replayPlan(resolved, this.core.now()))
  }

  claim(options: ClaimOptions): Promise<EventRecord[]> {
    return this.core.run(claimPlan(options, this.core.now()))
  }

  heartbeat(claims: readonly ClaimRef[], leaseMs: number): Promise<boolean[]> {
    return this.core.run(heartbeatPlan(claims, leaseMs, this.core.now()), { deferred: true })
  }

  complete(claim: ClaimRef): Promise<EventRecord> {
    return this.core.run(completePlan(claim, this.core.now()))
  }

  fail(claim: ClaimRef, error: unknown, options: FailOptions = {}): Promise<EventRecord> {
    return this.core.run(failPlan(claim, error, options, this.core.now()))
  }

  purge(query: EventPurgeQuery): Promise<number> {
    return this.core.run(purgePlan(query))
  }

  count(query: { channel?: string | null; scope?: string | null } = {}): Promise<Record<string, number>> {
    return this.core.read((state) => countRecords(state, query))
  }

  /** Lets the operations already called finish and rejects later ones. Idempotent. */
  close(): Promise<void> {
    return this.core.close()
  }
}
