/**
 * The provider contract: what a channel adapter (WhatsApp, Telegram, …) gives the bot, and the
 * shapes of inbound events and outbound content.
 */
import type { Json } from '../durability/journal/kv.js'

/** JSON a provider keeps in a stored media reference (the journal's value type). */
export type { Json }

/** The kinds of media a message may carry. */
export type MediaType = 'image' | 'video' | 'audio' | 'document' | 'sticker'

/**
 * A reference to a message's media. `token` is whatever the provider needs to download it: an id,
 * a URL, or (Baileys) a live object; the bytes are fetched lazily with `loadMediaOf(ctx)`.
 */
export interface MediaRef {
  /** What kind of media it is. */
  type: MediaType
  /** What the provider needs to download it. */
  token: unknown
  /** Its MIME type, when the channel says. */
  mimeType?: string
  /** Its file name, when the channel says (documents). */
  fileName?: string
}

/** A serializable, versioned media reference (`IProvider.serializeMediaRef`). Never credentials. */
export interface StoredMediaRef {
  /** The provider's format version of `data`, so a later release can still read it. */
  v: number
  /** What the provider needs to rebuild the reference. */
  data: Json
}

/** A button press, list pick or similar interaction. */
export interface Interaction {
  /** The id the bot gave the button or list row. */
  id: string
  /** Anything else the channel sent with it. */
  data?: Json
}

/** An inbound message or interaction, as a provider hands it to the bot. */
export interface InboundEvent {
  /** The channel's id of the event; a redelivery carries the same id. */
  id: string
  /** The chat it belongs to: replies go there, and one chat's messages run in order. */
  chatId: string
  /** @default 'interaction' when `interaction` is set, else 'message' */
  kind?: 'message' | 'interaction'
  /** Its text, or a media caption. */
  text?: string
  /** Its media. */
  media?: MediaRef
  /** The button pressed. */
  interaction?: Interaction
  /** The sender, where the channel tells one apart from the chat. */
  from?: string
  /** When the channel says it was sent, in ms since the epoch. */
  timestamp?: number
}

/** Outbound content: a text, or text/media/caption/buttons. Media by URL, path or Buffer. */
export type OutboundContent =
  | string
  | {
      /** The text. */
      text?: string
      /** One media item: exactly one of `url`, `path` or `buffer`. */
      media?: {
        /** What kind of media it is. */
        type: MediaType
        /** Where the channel (or the provider) fetches it. */
        url?: string
        /** A local file. */
        path?: string
        /** The bytes. */
        buffer?: Buffer
        /** @default guessed by the channel */
        mimeType?: string
        /** The name a document shows. */
        fileName?: string
      }
      /** The media's caption. */
      caption?: string
      /** Buttons under the message; a press comes back as an interaction with the button's `id`. */
      buttons?: {
        /** Comes back as `Interaction.id`. */
        id: string
        /** What the button shows. */
        title: string
      }[]
    }

/** What a provider answers for an accepted send. */
export interface ProviderSendResult {
  /** The channel's id of the sent message. */
  messageId: string
}

/**
 * The channel's word that it accepted a send: a status callback that echoed the outbox key the
 * provider put in the send (Twilio's `StatusCallback` URL, WhatsApp Cloud's `biz_opaque_callback_data`).
 */
export interface DeliveryReport {
  /** The outbox key the send carried (`ProviderSendOptions.outboxKey`). */
  outboxKey: string
  /** The channel's id of the message. */
  messageId: string
  /** The channel's status word (`sent`, `delivered`, `read`, `failed`…), for the record. */
  status?: string
}

/**
 * Called by a provider for each inbound event; resolves once the bot journaled it (answer a webhook
 * then). `delivered`, when the bot is durable, takes the channel's delivery reports: a send left
 * ambiguous by a crash is settled from one (answer the status callback once it resolved).
 */
export interface InboundSink {
  (event: InboundEvent): Promise<void>
  /** Takes one of the channel's delivery reports; resolves once it settled the send it names (or found none). */
  delivered?(report: DeliveryReport): Promise<void>
}

/** What the outbox tells a provider about one send. */
export interface ProviderSendOptions {
  /** The send's outbox key, for a provider that echoes it back (`echoesOutboxKey`); never content. */
  outboxKey?: string
}

/** A channel adapter. */
export interface IProvider {
  /** A stable name (journaled with each inbound record). */
  readonly name: string
  /** The longest text the channel accepts in one message; longer texts are split. */
  readonly textLimit?: number
  /** 'leader': only the replica holding the transport session may send. @default 'any' */
  readonly session?: 'any' | 'leader'
  /**
   * Starts receiving; hands each inbound event to `sink`. An event carries the channel's own id (a
   * redelivery carries the same one), and the channel is acknowledged (webhook 200, poll offset,
   * queue ack) only once `sink` resolved: the inbox has journaled it then. If `sink` rejects, do
   * not acknowledge, so the channel delivers it again.
   */
  start(sink: InboundSink): Promise<void>
  /** Stops receiving. Sends may still come while the bot finishes the work in flight. */
  stop(): Promise<void>
  /**
   * Sends; resolves once the channel accepted the message. Throws `RateLimitedError` (waits
   * `retryAfterMs`), a final error (`UnsupportedContentError`, `PayloadTooLargeError`,
   * `OutsideSessionWindowError`, `RecipientUnreachableError`, or `retryable: false`), or any other
   * error to be retried with backoff. Never puts a credential in an error.
   */
  send(chatId: string, content: OutboundContent, options?: ProviderSendOptions): Promise<ProviderSendResult>
  /**
   * True when each send carries `options.outboxKey` in a token the channel echoes on its status
   * callbacks, and the provider hands those to `sink.delivered`: a send found ambiguous after a
   * crash then waits up to `outbox.reconcileMs` for the status instead of guessing.
   */
  readonly echoesOutboxKey?: boolean
  /** Edits a sent message (never journaled: edits are idempotent). */
  edit?(chatId: string, messageId: string, content: OutboundContent): Promise<void>
  /** Shows a typing indicator (never journaled). */
  typing?(chatId: string): Promise<void>
  /** Updates a streaming draft (never journaled). */
  draft?(chatId: string, content: OutboundContent): Promise<void>
  /** Downloads a message's media. */
  download?(media: MediaRef): Promise<Buffer>
  /** A serializable reference for the journal, or undefined when the media cannot be made durable. Synchronous. */
  serializeMediaRef?(media: MediaRef): StoredMediaRef | undefined
  /** Rebuilds a media reference from the journal; throws a ProviderError when `stored` is not valid. */
  rehydrateMediaRef?(stored: StoredMediaRef, media: MediaRef): MediaRef
  /** With session 'leader': whether this replica holds the transport session now. */
  isLeader?(): boolean
}
