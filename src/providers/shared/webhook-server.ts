/**
 * The webhook part every webhook channel composes: it starts the HTTP server on the endpoint the
 * provider's options name, hands each request to the channel's route, and stops it. The channel
 * keeps its protocol (the route: which requests it refuses from their head, how it verifies and
 * maps a body); this part keeps what is the same everywhere: the server's limits, `stop` clearing
 * before it closes (a second `stop` does nothing), the origin tests and operators read, and a
 * route's refusal (`WebhookRefusal`) answered as it says, never as a failure.
 */
import { listenOn, startHttpServer, type RunningHttpServer, type WebhookEndpoint } from './http-server.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from './http-server.js'

/** A channel's webhook protocol, as the server calls it. */
export interface WebhookRoute {
  /**
   * The answer from the request line and headers alone (a wrong path 404, a wrong method 405, a
   * missing secret or signature 401), or undefined to read the body and call `handle`.
   */
  head(head: WebhookHead): WebhookResponse | undefined
  /**
   * Takes a request whose `head` answered undefined: verifies what covers the body, maps it and
   * hands its events to the sink, and answers (200 only once the sink resolved). A rejected sink
   * throws: the server answers 500 and reports the error, so the channel delivers it again.
   */
  handle(request: WebhookRequest): Promise<WebhookResponse>
  /** The largest body this route takes; a larger one is answered 413. @default WEBHOOK_SERVER_LIMITS.bodyBytesMax (1 MiB) */
  bodyBytesMax?: number | undefined
}

/**
 * A request a route refuses with an answer of its own (a body that is not JSON): thrown, and
 * answered as it says. It never leaves the server, so it carries no error code.
 */
export class WebhookRefusal extends Error {
  constructor(readonly answer: WebhookResponse) {
    super(`webhook request refused with ${answer.status}${answer.body ? `: ${answer.body}` : ''}`)
    this.name = 'WebhookRefusal'
  }
}

/** A provider's webhook server: started with the channel's route, stopped once, its origin readable while it runs. */
export class WebhookServer {
  readonly #onError: (error: unknown) => void
  #server: RunningHttpServer | undefined

  /** `onError` takes what a request's handling threw (a journal that refused an event); the request was answered 500. */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError
  }

  /** The server's origin once started (`http://host:port`); undefined before `start` and after `stop`. */
  get origin(): string | undefined {
    return this.#server?.origin
  }

  /** Listens on `endpoint` and serves `route` until `stop`. */
  async start(endpoint: WebhookEndpoint, route: WebhookRoute): Promise<void> {
    this.#server = await startHttpServer(
      {
        ...listenOn(endpoint),
        ...(route.bodyBytesMax !== undefined ? { bodyBytesMax: route.bodyBytesMax } : {}),
        head: (head) => route.head(head),
      },
      (request) => answerOf(route, request),
      this.#onError,
    )
  }

  /** Stops listening; the requests in flight are answered first. */
  async stop(): Promise<void> {
    const server = this.#server
    this.#server = undefined
    await server?.close()
  }
}

async function answerOf(route: WebhookRoute, request: WebhookRequest): Promise<WebhookResponse> {
  try {
    return await route.handle(request)
  } catch (error) {
    if (error instanceof WebhookRefusal) return error.answer
    throw error
  }
}
