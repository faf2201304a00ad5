/**
 * Inbox record ids in tests. The inbox record id of an inbound event is
 * `inboxRecordId(provider, chatId, eventId)` (src/core/durability/outbox/keys.ts), not the channel's event id.
 */
import { inboxRecordId } from '../src/core/durability/outbox/keys.js'

/**
 * The inbox record id of an event a MockProvider (named `'mock'` unless given) received:
 * `mock:c1:m1` for `{ id: 'm1', chatId: 'c1' }`. The derived send keys of its handler are `<id>:1`, `<id>:2`…
 */
export function recordId(eventId: string, chatId = 'c1', provider = 'mock'): string {
  return inboxRecordId(provider, chatId, eventId)
}
