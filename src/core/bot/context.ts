/** The context a handler gets: the message, its journal reference, replies, and per-chat state. */
import type { Json } from '../durability/journal/kv.js'
import type { SendResult } from '../durability/outbox/outbox.js'
import type { Interaction, MediaRef, OutboundContent } from '../provider/provider.js'

/** An inbound message as a handler sees it. */
export interface Message {
  /** The channel's id of the event. */
  id: string
  /** The chat it came from. */
  chatId: string
  /** A message, or an interaction (a button press). */
  kind: 'message' | 'interaction'
  /** Its text, or a media caption. */
  text?: string
  /** Its media, downloadable again on a replay (`loadMediaOf`). */
  media?: MediaRef
  /** The button pressed, for an interaction. */
  interaction?: Interaction
  /** The sender, where the channel tells one apart from the chat. */
  from?: string
  /** When the channel says it was sent, in ms since the epoch. */
  timestamp?: number
}

/** Options of a send. */
export interface SendOptions {
  /** Names the send (rule 1): a second send with this key is answered from the outbox. Never reaches the provider. */
  idempotencyKey?: string
}

/** What `enqueue` resolves to once the send is journaled. */
export interface EnqueueResult {
  /** The send's outbox key: `retry`, `show` and `outbox.get` take it. */
  key: string
}

/** Get/set access to a bag of JSON values. */
export interface StateAccess {
  /** The value under `key`, or undefined. */
  get<T extends Json = Json>(key: string): Promise<T | undefined>
  /** Keeps `value` under `key`. */
  set(key: string, value: Json): Promise<void>
}

/**
 * What a handler gets for one message: the message, its journal reference, replies and sends keyed
 * from it, and per-chat state. `Received` is the message as the matcher checked it (`TEXT`: its text is a string).
 */
export interface Context<Received extends Message = Message> {
  /** `id` is the inbox record id (with durability) or the channel's event id; keys of sends derive from it. */
  ref: {
    /** The inbox record id (with durability), else the channel's event id. */
    id: string
    /** The chat the message came from. */
    chatId: string
    /** The channel's id of the message. */
    messageId: string
  }
  /** The inbound message. */
  message: Received
  /** The chat the message came from: where `reply` sends. */
  chatId: string
  /** Replies in this chat. */
  reply(content: OutboundContent, options?: SendOptions): Promise<SendResult>
  /** Sends to any chat, with a key derived from this message like a reply. */
  send(chatId: string, content: OutboundContent, options?: SendOptions): Promise<SendResult>
  /** Journals a send for the sweeper (see bot.enqueue), keyed from this message unless idempotencyKey is given. */
  enqueue(chatId: string, content: OutboundContent, options?: SendOptions): Promise<EnqueueResult>
  /** Per-chat user data, kept in the store. */
  user: StateAccess
  /** The flow's state (kept with its checkpoint); outside a flow, a bag for this message only. */
  state: StateAccess
}
