/**
 * The points of one message's path a tracer may wrap: its admission into the inbox, its handler
 * run, and each send the handler makes. `botmesh/telemetry` implements it with OpenTelemetry; the
 * default does nothing, so a bot without tracing pays one function call per point.
 */

/** The inbound message a point belongs to. */
export interface TracedMessage {
  /** The inbox record id (stable across redeliveries and replays). */
  inboundId: string
  /** The chat it came from. */
  chatId: string
  /** The provider that admitted it. */
  provider: string
}

/** One send, and the message whose handler made it (null for a send made outside a handler). */
export interface TracedSend {
  /** The send's outbox key. */
  key: string
  /** The chat it goes to. */
  chatId: string
  /** The inbox record whose handler made it, or null. */
  inboundId: string | null
}

/** What the runtime calls; each method runs `work` and returns (or throws) what it does. */
export interface MessageTracing {
  /** Wraps journaling an inbound message. */
  admit<T>(message: TracedMessage, work: () => Promise<T>): Promise<T>
  /** Wraps running the handler on a message (`replay` when it runs again after a crash or a replay). */
  handle<T>(message: TracedMessage & { replay: boolean }, work: () => Promise<T>): Promise<T>
  /** Wraps one send through the outbox. */
  send<T>(send: TracedSend, work: () => Promise<T>): Promise<T>
}

/** No tracing: runs the work as it is. */
export const NO_TRACING: MessageTracing = {
  admit: (_message, work) => work(),
  handle: (_message, work) => work(),
  send: (_send, work) => work(),
}
