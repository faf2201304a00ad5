/**
 * `bot.durability`: what a running bot exposes of its journals — its scope, the inbox and outbox
 * (list, discard), replay and retry, and the metrics.
 */
import type { Journal, Versioned } from '../journal/backend.js'
import type { DurabilityEngine } from '../engine.js'
import type { DurabilityMetrics } from '../metrics.js'
import { discardSend, replayInbound, retrySend, type OperatorChange } from './operations.js'
import { INBOX_STATES, OUTBOX_STATES, type InboxRecord, type OutboxRecord } from '../journal/records.js'

/** A query for `inbox.list` / `outbox.list`. */
export interface RecordListQuery {
  /** Only this state; every state when omitted. */
  state?: string
  /** @default 100 */
  limit?: number
}

/** `bot.durability`: the bot's view of its journals: read records, replay an inbound message, retry or discard a send, and the counters. */
export class Durability {
  /** The inbox's records. */
  readonly inbox: {
    /** Inbox records in a state (all states by default), oldest change first. */
    list(query?: RecordListQuery): Promise<InboxRecord[]>
    /** The inbox record with this id, or undefined. */
    get(id: string): Promise<InboxRecord | undefined>
  }
  /** The outbox's records, and forgetting a send. */
  readonly outbox: {
    /** Outbox records in a state (all states by default), oldest change first. */
    list(query?: RecordListQuery): Promise<OutboxRecord[]>
    /** The outbox record with this key, or undefined. */
    get(key: string): Promise<OutboxRecord | undefined>
    /** Forgets a send. */
    discard(key: string): Promise<void>
  }

  /** @internal The bot makes it (`bot.durability`). */
  constructor(
    private readonly engine: DurabilityEngine,
    private readonly wake: () => void,
  ) {
    const journal = engine.journal
    this.inbox = {
      list: (query) => listRecords(journal, 'inbox', INBOX_STATES, query),
      get: async (id) => (await journal.read('inbox', [id]))[0]?.record,
    }
    this.outbox = {
      list: (query) => listRecords(journal, 'outbox', OUTBOX_STATES, query),
      get: async (key) => (await journal.read('outbox', [key]))[0]?.record,
      discard: async (key) => {
        await discardSend(journal, key, engine.now())
      },
    }
  }

  /** The namespace's derived id: this bot's view of the backend. */
  get scope(): string {
    return this.engine.scopeId
  }

  /** This process's instance id: the owner of the leases it takes. */
  get instanceId(): string {
    return this.engine.instanceId
  }

  /** Processes an inbound record again (dead, failed or done). */
  async replayInbound(id: string, change?: OperatorChange): Promise<void> {
    await replayInbound(this.engine.journal, id, { at: this.engine.now(), ...change })
    this.wake()
  }

  /** Sends again (dead, failed or unknown). */
  async retrySend(key: string, change?: OperatorChange): Promise<void> {
    await retrySend(this.engine.journal, key, { at: this.engine.now(), ...change })
    this.wake()
  }

  /** The counters since the bot started. */
  metrics(): DurabilityMetrics {
    return this.engine.metrics.snapshot()
  }
}

async function listRecords<K extends 'inbox' | 'outbox'>(
  journal: Journal,
  kind: K,
  states: readonly string[],
  query: RecordListQuery = {},
): Promise<(K extends 'inbox' ? InboxRecord : OutboxRecord)[]> {
  const limit = query.limit ?? 100
  const out: Versioned<K extends 'inbox' ? InboxRecord : OutboxRecord>[] = []
  for (const state of query.state ? [query.state] : states) {
    if (out.length >= limit) break
    out.push(...((await journal.list(kind, { state, limit: limit - out.length })) as typeof out))
  }
  return out.map((found) => found.record)
}
