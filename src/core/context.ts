/** The context a handler gets: the message, its journal reference, replies, and per-chat state. */
import type { Json } from './durability/kv.js'
import type { SendResult } from './durability/outbox.js'
import type { Interaction, MediaRef, OutboundContent } from './provider.js'

/** An inbound message as a handler sees it. */
export interface Message {
  id: string
  chatId: string
  kind: 'message' | 'interaction'
  text?: string
  media?: MediaRef
  interaction?: Interaction
  from?: string
  timestamp?: number
}

/** Options of a send. */
export interface SendOptions {
  /** Names the send (rule 1): a second send with this key is answered from the outbox. Never reaches the provider. */
  idempotencyKey?: string
}

/** Get/set access to a bag of JSON values. */
export interface StateAccess {
  /** The value under `key`, or undefined. */
  get<T extends Json = Json>(key: string): Promise<T | undefined>
  /** Keeps `value` under `key`. */
  set(key: string, value: Json): Promise<void>
}

/** What a handler gets for one message: the message, its journal reference, replies and sends keyed from it, and per-chat state. */
export interface Context {
  /** `id` is the inbox record id (with durability) or the channel's event id; keys of sends derive from it. */
  ref: { id: string; chatId: string; messageId: string }
  message: Message
  chatId: string
  /** Replies in this chat. */
  reply(content: OutboundContent, options?: SendOptions): Promise<SendResult>
  /** Sends to any chat, with a key derived from this message like a reply. */
  send(chatId: string, content: OutboundContent, options?: SendOptions): Promise<SendResult>
  /** Journals a send for the sweeper (see bot.enqueue), keyed from this message unless idempotencyKey is given. */
  enqueue(chatId: string, content: OutboundContent, options?: SendOptions): Promise<{ key: string }>
  /** Per-chat user data, kept in the store. */
  user: StateAccess
  /** The flow's state (kept with its checkpoint); outside a flow, a bag for this message only. */
  state: StateAccess
}
