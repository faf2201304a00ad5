/**
 * The small HTTP server behind a webhook transport: what can be refused from the request line and
 * headers alone is answered before a byte of the body is read (a wrong path 404, a wrong method
 * 405, a missing or wrong URL or header secret 401, a `Content-Length` over the channel's cap 413);
 * only then is the body read, bounded, and handed to the handler. Transports answer a platform
 * only once the inbox journaled the event, so the handler is async and the server waits for it
 * before it writes the response. Slow or idle clients are bounded by the header and request
 * timeouts, and the number of open connections by `maxConnections`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What a request says before its body: all `head` checks read. */
export interface WebhookHead {
  /** The HTTP method, upper case (`GET` for a verification, `POST` for a delivery). */
  method: string
  /** The path and query, as sent. */
  url: URL
  /** The request headers, names in lower case (Node's `IncomingMessage.headers`). */
  headers: IncomingMessage['headers']
}

/** A webhook request as the handler sees it. */
export interface WebhookRequest extends WebhookHead {
  /** The raw body (signatures are computed over these bytes). */
  body: Buffer
}

/** What the handler answers. */
export interface WebhookResponse {
  status: number
  body?: string
  contentType?: string
}

/** The limits of a webhook server, each with its default in `WEBHOOK_SERVER_LIMITS`. */
export interface WebhookServerLimits {
  /** The longest a client may take to send the request line and headers. @default 10 s */
  headersTimeoutMs?: number
  /** The longest a client may take to send a whole request, body included. @default 30 s */
  requestTimeoutMs?: number
  /** The most connections open at once; more are closed as they arrive. @default 256 */
  maxConnections?: number
}

/** The defaults of a webhook server's limits. */
export const WEBHOOK_SERVER_LIMITS = {
  /** The longest a client may take to send the request line and headers. @default 10 s */
  headersTimeoutMs: 10_000,
  /** The longest a client may take to send a whole request, body included. @default 30 s */
  requestTimeoutMs: 30_000,
  /** The most connections open at once. @default 256 */
  maxConnections: 256,
  /** How often the header and request timeouts are checked (Node checks them on an interval). @default 1 s */
  timeoutCheckIntervalMs: 1_000,
  /** The largest request body, when the channel names none. @default 1 MiB */
  bodyBytesMax: 1024 * 1024,
} as const

/** Options of `startHttpServer`. */
export interface HttpServerOptions extends WebhookServerLimits {
  /** The interface to listen on. @default '0.0.0.0' */
  host?: string
  /** The port; 0 picks a free one. */
  port: number
  /** The largest request body accepted; a larger one is answered 413. @default 1 MiB */
  bodyBytesMax?: number
  /**
   * The answer a request gets from its request line and headers alone (404, 405, 401, a
   * subscription check), before its body is read; undefined reads the body and calls the handler.
   */
  head?: (head: WebhookHead) => WebhookResponse | undefined
}

/**
 * Where a provider's webhook listens: the part of its `webhook` options every webhook channel
 * shares (each adds its path and its secret or key).
 */
export interface WebhookEndpoint {
  /** The port it listens on; 0 picks a free one. */
  port: number
  /** The address it listens on. @default '0.0.0.0' */
  host?: string | undefined
  /** The server's timeouts and connection cap. @default WEBHOOK_SERVER_LIMITS */
  limits?: WebhookServerLimits | undefined
}

/** The listening part of `startHttpServer`'s options, from a provider's webhook options: one rule for every channel. */
export function listenOn(endpoint: WebhookEndpoint): HttpServerOptions {
  return { port: endpoint.port, ...endpoint.limits, ...(endpoint.host ? { host: endpoint.host } : {}) }
}

/** A listening server. */
export interface RunningHttpServer {
  /** `http://host:port` (what the server listens on). */
  readonly origin: string
  close(): Promise<void>
}

/** The default largest webhook body. @default 1 MiB */
export const WEBHOOK_BODY_BYTES_MAX = WEBHOOK_SERVER_LIMITS.bodyBytesMax

/** Starts a server that hands each request to `handler`; a handler that throws is answered 500. */
export async function startHttpServer(
  options: HttpServerOptions,
  handler: (request: WebhookRequest) => Promise<WebhookResponse>,
  onError: (error: unknown) => void,
): Promise<RunningHttpServer> {
  let closing: Promise<void> | undefined
  const requestTimeout = options.requestTimeoutMs ?? WEBHOOK_SERVER_LIMITS.requestTimeoutMs
  const server: Server = createServer(
    {
      // The headers are part of the request: their timeout is never the longer one (Node refuses that).
      headersTimeout: Math.min(options.headersTimeoutMs ?? WEBHOOK_SERVER_LIMITS.headersTimeoutMs, requestTimeout),
      requestTimeout,
      connectionsCheckingInterval: WEBHOOK_SERVER_LIMITS.timeoutCheckIntervalMs,
    },
    (req, res) => {
      // Once closing, a kept-alive connection would hold close() open until its idle timeout.
      if (closing) res.setHeader('connection', 'close')
      void serve(server, req, res, options, handler).catch((error: unknown) => {
        onError(error)
        if (!res.headersSent) res.writeHead(500).end()
        else res.destroy()
      })
    },
  )
  server.maxConnections = options.maxConnections ?? WEBHOOK_SERVER_LIMITS.maxConnections
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve())
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    origin: `http://${host}:${address.port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        // A platform's keep-alive connection would hold close() open for good.
        server.closeIdleConnections()
      })
      return closing
    },
  }
}

/**
 * The request target as a URL: an origin-form target (`/path?query`, `//` included) is read as a
 * path on a placeholder origin, an absolute-form one (`http://host/path`) as it is; undefined when
 * it cannot be read.
 */
export function requestTargetOf(target: string | undefined): URL | undefined {
  const value = target ?? '/'
  try {
    return value.startsWith('/') ? new URL(`http://webhook.invalid${value}`) : new URL(value)
  } catch {
    return undefined
  }
}

/**
 * Answers without reading the body. The connection is closed after the answer; Node discards what
 * of the body still arrives until then, within the request timeout.
 */
function answerEarly(res: ServerResponse, answer: WebhookResponse): void {
  res
    .writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain; charset=utf-8', connection: 'close' })
    .end(answer.body ?? '')
}

async function serve(
  server: Server,
  req: IncomingMessage,
  res: ServerResponse,
  options: HttpServerOptions,
  handler: (request: WebhookRequest) => Promise<WebhookResponse>,
): Promise<void> {
  const url = requestTargetOf(req.url)
  if (!url) return answerEarly(res, { status: 400, body: 'the request target cannot be read' })
  const head: WebhookHead = { method: req.method ?? 'GET', url, headers: req.headers }
  const early = options.head?.(head)
  if (early) return answerEarly(res, early)
  const bodyBytesMax = options.bodyBytesMax ?? WEBHOOK_SERVER_LIMITS.bodyBytesMax
  // A body announced over the cap is refused before it is read; one that grows over it while read, as it does.
  if (Number(req.headers['content-length'] ?? 0) > bodyBytesMax) return answerEarly(res, { status: 413 })
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > bodyBytesMax) {
      res.writeHead(413, { connection: 'close' }).end()
      req.destroy()
      return
    }
    chunks.push(chunk)
  }
  const answer = await handler({ ...head, body: Buffer.concat(chunks) })
  // A request that was waiting on the journal while the server closed ends its connection too.
  if (!server.listening) res.setHeader('connection', 'close')
  res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain; charset=utf-8' }).end(answer.body ?? '')
}
