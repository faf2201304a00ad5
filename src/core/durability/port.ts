/**
 * The engine's one port: everything a durable bot's runtime asks of it, and everything it needs
 * from the runtime. The runtime admits events, sends and enqueues, reports deliveries, and starts
 * and stops; the engine journals, leases, runs, completes, fails, retries and sweeps. What it needs
 * back is the bot's transport (the channel, its media codec, its send hooks) and a message runner
 * (routing and handlers): its only collaborators.
 */
import type { DeliveryReport, InboundEvent, IProvider, OutboundContent, ProviderSendResult } from '../provider/provider.js'
import type { DurabilityConfig } from './config.js'
import type { Durability } from './operations/facade.js'
import type { Json } from './journal/kv.js'
import type { SendResult } from './outbox/outbox.js'
import type { SendOrigin } from './run/send-origin.js'

export type { DurabilityOptions, Namespace } from './config.js'
export type { EngineEvents } from './engine.js'
export type { Durability } from './operations/facade.js'
export type { SendResult } from './outbox/outbox.js'
export type { SendOrigin } from './run/send-origin.js'

/** The bot's way in and out of its channel, as the engine sees it. */
export interface Transport {
  /** The provider's name: part of every inbound record id. */
  readonly name: string
  readonly textLimit: number | undefined
  /** Whether the channel echoes the outbox key on its status callbacks (see reconcile.ts). */
  readonly echoesOutboxKey: boolean
  /** 'leader' when the channel allows one live session (see transport-session.ts). */
  readonly session?: IProvider['session']
  isLeader?(): boolean
  /** Stops the channel's session (a replica that lost the leader-only session). */
  stop(): Promise<void>
  /** An event as the inbox journals it: media as references the channel's codec can read back. */
  journalEvent(event: InboundEvent, mediaRefs: boolean): Json
  /** A journaled event as a replay hands it to its handler. */
  replayedEvent(journaled: Json): InboundEvent
  /** The before('send') hooks (a value at once when there are none). */
  beforeSend(chatId: string, content: OutboundContent, key: string): OutboundContent | Promise<OutboundContent>
  /** Calls the channel; `outboxKey` is null for a send that bypasses the outbox. */
  send(chatId: string, content: OutboundContent, outboxKey: string | null): Promise<ProviderSendResult>
  /** The after('send') hooks and the message log of a delivered send (`key` null: not journaled). */
  afterSend(chatId: string, content: OutboundContent, key: string | null, messageId: string): Promise<void>
}

/** A journaled message handed to its handler: the live event on its first run, else read back from the journal. */
export interface JournaledMessage {
  /** The inbox record id (the one it would have had, for an event the journal could not take: failOpen). */
  id: string
  /** The journaled event (null for an event the journal could not take). */
  journaled: Json
  live: InboundEvent | undefined
  /** Whether earlier runs may have happened (a replay routes without logging the arrival again). */
  replay: boolean
}

/** How a message's handling ended. */
export type Handled =
  /** A replay of a message that already fed its flow's step: done without running anything. */
  | { type: 'fed-before'; note: string }
  /** The handler ran (or nothing matched); `unrecorded` is an effect the store could not record. */
  | { type: 'ran'; unrecorded?: unknown }

/** Routing and handlers: what runs a message once the engine holds it. */
export interface MessageRunner {
  /**
   * Routes `message` and runs its handler, whose sends carry `origin`. Rejects only when the message
   * could not be routed (its store could not be read): the run then fails and is retried.
   */
  handle(message: JournaledMessage, origin: SendOrigin): Promise<Handled>
}

/** A send as the runtime hands it over. */
export interface SendRequest {
  chatId: string
  content: OutboundContent
  idempotencyKey?: string | undefined
  /** The message whose handler sends: its sends get derived keys and are waited for. */
  origin: SendOrigin | undefined
}

/** What a durable bot's runtime asks of the engine. */
export interface EnginePort {
  readonly config: DurabilityConfig
  /** `bot.durability`. */
  readonly durability: Durability
  /** Whether the channel's transport runs here (a standby of a leader-only session has none). */
  readonly transportRunning: boolean
  /** Whether messages or sends are still in flight. */
  readonly busy: boolean
  /** Starts the journals, retention and the sweeper, then the transport (at once, or once elected). */
  start(startTransport: () => Promise<void>): Promise<void>
  /** Journals an inbound event, then runs it; resolves once it is journaled (or known). */
  admit(event: InboundEvent): Promise<void>
  /** A delivery report of the channel's status callbacks (see reconcile.ts). */
  delivered(report: DeliveryReport): Promise<void>
  send(request: SendRequest): Promise<SendResult>
  /** Journals a send for the sweeper and returns at once; a second enqueue of a key is a no-op. */
  enqueue(request: SendRequest): Promise<{ key: string }>
  /** Resolves when nothing is in flight and nothing can be worked on now. */
  idle(timeoutMs: number): Promise<void>
  /** Graceful, once the transport stopped: finishes the work in flight, then stops. */
  stop(): Promise<void>
}
