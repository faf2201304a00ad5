/**
 * The small HTTP server behind a webhook transport: one handler, a bounded request body, and an
 * idempotent close. Transports answer a platform only once the inbox journaled the event, so the
 * handler is async and the server waits for it before it writes the response.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A webhook request as the handler sees it. */
export interface WebhookRequest {
  /** The HTTP method, upper case (`GET` for a verification, `POST` for a delivery). */
  method: string
  /** The path and query, as sent. */
  url: URL
  /** The request headers, names in lower case (Node's `IncomingMessage.headers`). */
  headers: IncomingMessage['headers']
  /** The raw body (signatures are computed over these bytes). */
  body: Buffer
}

/** What the handler answers. */
export interface WebhookResponse {
  status: number
  body?: string
  contentType?: string
}

/** Options of `startHttpServer`. */
export interface HttpServerOptions {
  /** The interface to listen on. @default '0.0.0.0' */
  host?: string
  /** The port; 0 picks a free one. */
  port: number
  /** The largest request body accepted; a larger one is answered 413. @default 1 MiB */
  bodyBytesMax?: number
}

/** A listening server. */
export interface RunningHttpServer {
  /** `http://host:port` (what the server listens on). */
  readonly origin: string
  close(): Promise<void>
}

/** The default largest webhook body. @default 1 MiB */
export const WEBHOOK_BODY_BYTES_MAX = 1024 * 1024

/** Starts a server that hands each request to `handler`; a handler that throws is answered 500. */
export async function startHttpServer(
  options: HttpServerOptions,
  handler: (request: WebhookRequest) => Promise<WebhookResponse>,
  onError: (error: unknown) => void,
): Promise<RunningHttpServer> {
  const bodyBytesMax = options.bodyBytesMax ?? WEBHOOK_BODY_BYTES_MAX
  let closing: Promise<void> | undefined
  const server: Server = createServer((req, res) => {
    // Once closing, a kept-alive connection would hold close() open until its idle timeout.
    if (closing) res.setHeader('connection', 'close')
    void serve(server, req, res, bodyBytesMax, handler).catch((error: unknown) => {
      onError(error)
      if (!res.headersSent) res.writeHead(500).end()
      else res.destroy()
    })
  })
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

async function serve(
  server: Server,
  req: IncomingMessage,
  res: ServerResponse,
  bodyBytesMax: number,
  handler: (request: WebhookRequest) => Promise<WebhookResponse>,
): Promise<void> {
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
  const answer = await handler({
    method: req.method ?? 'GET',
    url: new URL(req.url ?? '/', 'http://webhook.invalid'),
    headers: req.headers,
    body: Buffer.concat(chunks),
  })
  // A request that was waiting on the journal while the server closed ends its connection too.
  if (!server.listening) res.setHeader('connection', 'close')
  res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain; charset=utf-8' }).end(answer.body ?? '')
}
