/** Records for conformance cases: complete, valid shapes with the fields a case cares about. */
import type { InboxRecord, OutboxRecord } from '../../core/durability/journal/records.js'

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
