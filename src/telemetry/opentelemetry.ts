/**
 * `MessageTracing` with OpenTelemetry: one span per admission ("botmesh.admit"), a child per
 * handler run ("botmesh.handler") and a grandchild per send ("botmesh.send"). The parents are
 * kept here by inbox record id rather than in OpenTelemetry's active context, so they hold
 * whether or not the application registered a context manager. `@opentelemetry/api` is an
 * optional peer, loaded on first use; without an SDK its tracer records nothing.
 */
import type { Context, Span, Tracer, TracerProvider } from '@opentelemetry/api'
import { loadDriver } from '../core/platform/driver.js'
import type { MessageTracing, TracedMessage, TracedSend } from '../core/durability/tracing.js'

/** Limits of the tracer, named with units last. */
export const TRACING_LIMITS = {
  /** Messages whose span is kept as a parent at once; the oldest is forgotten past it (its later spans become roots). */
  parentsMax: 10_000,
} as const

/** The tracer's name when none is given. */
export const TRACER_NAME_DEFAULT = 'botmesh'

/** Where `openTelemetryTracing` takes its tracer from. */
export interface OpenTelemetryTracingOptions {
  /** @default the global tracer provider (the one the application's SDK registered) */
  tracerProvider?: TracerProvider
  /** @default 'botmesh' */
  tracerName?: string
}

type Api = typeof import('@opentelemetry/api')

/** The tracing a bot takes as `durability.tracing`. */
export async function openTelemetryTracing(options: OpenTelemetryTracingOptions = {}): Promise<MessageTracing> {
  const api = await loadApi()
  const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(options.tracerName ?? TRACER_NAME_DEFAULT)
  return new OpenTelemetryTracing(api, tracer)
}

class OpenTelemetryTracing implements MessageTracing {
  /** The context of each message's latest span (admission, then handler), by inbox record id. */
  readonly #parents = new Map<string, Context>()

  constructor(
    private readonly api: Api,
    private readonly tracer: Tracer,
  ) {}

  admit<T>(message: TracedMessage, work: () => Promise<T>): Promise<T> {
    return this.#span('botmesh.admit', this.api.ROOT_CONTEXT, messageAttributes(message), (span) => {
      this.#remember(message.inboundId, this.api.trace.setSpan(this.api.ROOT_CONTEXT, span))
      return work()
    })
  }

  handle<T>(message: TracedMessage & { replay: boolean }, work: () => Promise<T>): Promise<T> {
    const parent = this.#parents.get(message.inboundId) ?? this.api.ROOT_CONTEXT
    const attributes = { ...messageAttributes(message), 'botmesh.replay': message.replay }
    return this.#span('botmesh.handler', parent, attributes, async (span) => {
      this.#remember(message.inboundId, this.api.trace.setSpan(parent, span))
      try {
        return await work()
      } finally {
        this.#parents.delete(message.inboundId)
      }
    })
  }

  send<T>(send: TracedSend, work: () => Promise<T>): Promise<T> {
    const parent = (send.inboundId !== null && this.#parents.get(send.inboundId)) || this.api.ROOT_CONTEXT
    const attributes = {
      'botmesh.send.key': send.key,
      'botmesh.chat_id': send.chatId,
      ...(send.inboundId !== null && { 'botmesh.inbound_id': send.inboundId }),
    }
    return this.#span('botmesh.send', parent, attributes, () => work())
  }

  /** Runs `work` in a span that ends with it, marked as an error when it throws. */
  async #span<T>(
    name: string,
    parent: Context,
    attributes: Record<string, string | boolean>,
    work: (span: Span) => Promise<T>,
  ): Promise<T> {
    const span = this.tracer.startSpan(name, { attributes }, parent)
    try {
      return await this.api.context.with(this.api.trace.setSpan(parent, span), () => work(span))
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error))
      span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
      throw error
    } finally {
      span.end()
    }
  }

  #remember(inboundId: string, context: Context): void {
    this.#parents.delete(inboundId)
    this.#parents.set(inboundId, context)
    if (this.#parents.size > TRACING_LIMITS.parentsMax) this.#parents.delete(this.#parents.keys().next().value!)
  }
}

function messageAttributes(message: TracedMessage): Record<string, string> {
  return { 'botmesh.inbound_id': message.inboundId, 'botmesh.chat_id': message.chatId, 'botmesh.provider': message.provider }
}

/** @opentelemetry/api, loaded on first use; a sentence saying what to install when it is missing. */
async function loadApi(): Promise<Api> {
  const loaded = (await loadDriver({
    packageName: '@opentelemetry/api',
    neededBy: 'botmesh/telemetry',
    load: () => import('@opentelemetry/api'),
  })) as Api & {
    default?: Api
  }
  return loaded.trace ? loaded : loaded.default!
}
