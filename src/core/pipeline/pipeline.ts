/**
 * The path every message of a bot takes: an inbound event is received, routed and handled, and the
 * handler's replies are sent. A bot has exactly one pipeline: the plain one (handlers in memory, as
 * without the `durability` key) or the durable one (the same steps inside the inbox and outbox
 * journals). docs/architecture.md walks one message through it hop by hop.
 */
import type { Context, Message, SendOptions } from '../bot/context.js'
import type { SendResult } from '../durability/port.js'
import type { Flow } from '../bot/flow.js'
import { textOf, type SendHooks } from '../bot/hooks.js'
import type { Matcher } from '../bot/matchers.js'
import type { DeliveryReport, IProvider, InboundEvent, OutboundContent } from '../provider/provider.js'
import type { Store } from '../store/store.js'
import type { SendOrigin } from '../durability/port.js'

/** Where `ctx.reply`, `ctx.send`, `bot.send` and `bot.enqueue` go: one object per pipeline. */
export interface Sender {
  /** Sends now; `origin` is the message whose handler sends (its sends get derived keys). */
  send(chatId: string, content: OutboundContent, options: SendOptions, origin: SendOrigin | undefined): Promise<SendResult>
  /** Queues a send and returns at once; a second enqueue of a key is a no-op. */
  enqueue(chatId: string, content: OutboundContent, options: SendOptions, origin: SendOrigin | undefined): Promise<{ key: string }>
}

export interface MessagePipeline {
  readonly sender: Sender
  /** Whether the provider's transport runs here (a standby of a leader-only session has none). */
  readonly transportRunning: boolean
  /** Starts the pipeline, then the transport (`startTransport` subscribes `receive` to the provider). */
  start(startTransport: () => Promise<void>): Promise<void>
  /** Takes one inbound event; resolves once it is accepted (journaled, with durability). */
  receive(event: InboundEvent): Promise<void>
  /** Takes a delivery report of the provider's status callbacks (durable pipelines only). */
  readonly delivered?: (report: DeliveryReport) => Promise<void>
  /** The message whose handler runs in this async context, if the pipeline tracks one. */
  currentOrigin(): SendOrigin | undefined
  /** Resolves when nothing is in flight and nothing can be worked on now. */
  idle(timeoutMs: number): Promise<void>
  /** Graceful, once the transport stopped: finishes the work in flight, then stops. */
  stop(): Promise<void>
}

/** A message handler; `Received` is the message as its matcher checked it. */
export type Handler<Received extends Message = Message> = (ctx: Context<Received>) => unknown | Promise<unknown>

export interface Registration {
  matcher: Matcher
  handler: Handler | Flow
}

/** What a bot gives its pipeline: the parts both pipelines route, run and send with. */
export interface BotParts {
  provider: IProvider
  store: Store
  scope: string
  registrations: Registration[]
  flows: Map<string, Flow>
  hooks: SendHooks
  error(error: unknown): void
  warn(message: string): void
}

/** After a delivery, with or without the outbox: the after('send') hooks, then the message log. */
export function afterDelivery(
  parts: BotParts,
  chatId: string,
  content: OutboundContent,
  key: string | null,
  messageId: string,
): Promise<void> {
  const log = () =>
    parts.store.appendLog(parts.scope, { direction: 'out', chatId, messageId, text: textOf(content), at: Date.now(), ref: key })
  // Without after('send') hooks the log is written at once: no async frame and two promises fewer per send.
  try {
    return parts.hooks.after.length === 0 ? log() : parts.hooks.runAfter({ chatId, content, key, messageId }).then(log)
  } catch (error) {
    return Promise.reject(error)
  }
}
