/**
 * How the bot's inbox records are kept as event records: on the channel 'botwa:durable', in a
 * scope per bot, with eventType 'botwa.inbound.message' or 'botwa.inbound.interaction'. State,
 * attempts, lease and fencing token map one to one; what the journal has no field for (the chat,
 * the provider, the journaled event, the audit trail, the chat's order) rides in the payload. The mapping is exact
 * both ways, so a record reads back as it was written.
 */
import type { Json, AuditEntry, InboxRecord } from '../../core/spi.js'
import { DURABLE_CHANNEL, DURABLE_ID_PREFIX } from '../../events/append-plan.js'
import type { EventLane, EventRecord, EventRecordInput } from '../../events/record.js'

/** The event types of the bot's inbound records. */
export const INBOUND_EVENT_TYPES = {
  /** An inbound message (text, media or both). */
  message: 'botwa.inbound.message',
  /** An inbound interaction: a tap on a button or a pick from a list. */
  interaction: 'botwa.inbound.interaction',
} as const

/** What an inbound record's payload holds. */
export interface InboundPayload {
  /** The inbox record's id (deterministic from the channel's event id). */
  inboxId: string
  chatId: string
  provider: string
  event: Json
  audit?: AuditEntry[]
  /** The record's place in its chat's order. */
  seq?: number
  /** The chat's message it was queued behind at admission. */
  after?: string | null
}

/** The lane of a bot's inbound records. */
export function inboundLane(scopeId: string): EventLane {
  return { channel: DURABLE_CHANNEL, scope: scopeId }
}

/**
 * The event id of a bot's inbound record: unique in the journal, because the scope is part of it
 * (encoded, so no scope and id pair can spell another's).
 */
export function inboundEventId(scopeId: string, inboxId: string): string {
  return `${DURABLE_ID_PREFIX}${encodeURIComponent(scopeId)}:${inboxId}`
}

/** An inbox record as the event record that stores it. */
export function toEventRecord(scopeId: string, record: InboxRecord): EventRecordInput {
  const payload: InboundPayload = { inboxId: record.id, chatId: record.chatId, provider: record.provider, event: record.event }
  if (record.audit !== undefined) payload.audit = record.audit
  if (record.seq !== undefined) payload.seq = record.seq
  if (record.after !== undefined) payload.after = record.after
  return {
    id: inboundEventId(scopeId, record.id),
    channel: DURABLE_CHANNEL,
    scope: scopeId,
    eventType: INBOUND_EVENT_TYPES[record.kind],
    payload: payload as unknown as Json,
    state: record.state,
    attempts: record.attempts,
    availableAt: record.nextAttemptAt,
    lease: record.lease,
    fencingToken: record.fencingToken,
    lastError: record.lastError,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  }
}

/** The inbox record an event record stores. */
export function toInboxRecord(event: EventRecord): InboxRecord {
  const payload = event.payload as unknown as InboundPayload
  const record: InboxRecord = {
    id: payload.inboxId,
    kind: event.eventType === INBOUND_EVENT_TYPES.interaction ? 'interaction' : 'message',
    state: event.state,
    chatId: payload.chatId,
    provider: payload.provider,
    event: payload.event,
    attempts: event.attempts,
    nextAttemptAt: event.availableAt,
    lease: event.lease,
    fencingToken: event.fencingToken,
    lastError: event.lastError,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
  }
  if (payload.audit !== undefined) record.audit = payload.audit
  if (payload.seq !== undefined) record.seq = payload.seq
  if (payload.after !== undefined) record.after = payload.after
  return record
}
