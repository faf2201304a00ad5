/** Records for conformance cases: complete, valid shapes with the fields a case cares about. */
import type { InboxRecord, OutboxRecord } from '../../durability/records.js'

export function inboxRecord(id: string, fields: Partial<InboxRecord> = {}): InboxRecord {
  return {
    id,
    kind: 'message',
    state: 'pending',
    chatId: 'chat-1',
    provider: 'mock',
    event: { id, chatId: 'chat-1', text: `text of ${id}` },
    attempts: 0,
    nextAttemptAt: null,
    lease: null,
    fencingToken: 0,
    lastError: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...fields,
  }
}

export function outboxRecord(key: string, fields: Partial<OutboxRecord> = {}): OutboxRecord {
  return {
    key,
    state: 'pending',
    chatId: 'chat-1',
    payload: { text: `reply ${key}` },
    fingerprint: null,
    keySource: 'explicit',
    inboundId: null,
    ordinal: null,
    previousPart: null,
    attempts: 0,
    nextAttemptAt: null,
    lease: null,
    fencingToken: 0,
    providerMessageId: null,
    lastError: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...fields,
  }
}

/**
 * A clock that moves only when the case moves it, for the engine's `clock` option. It starts at the
 * local time so journaled times look like real ones. A case that drives time with it never calls
 * `engine.clock.sync()`: a sync would measure the offset to the backend's clock again and undo
 * `advance`, and two engines synced at two moments would disagree by however long the host took
 * between the syncs (on a busy host, longer than a short lease).
 */
export class ManualClock {
  #nowMs = Date.now()

  /** The engine's `clock` option (bound, so it can be passed as is). */
  readonly now = (): number => this.#nowMs

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.#nowMs += ms
  }
}
