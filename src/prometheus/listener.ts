/**
 * An optional `/metrics` listener for a bot that has no HTTP server of its own: a registry of its
 * own with the bot's collectors, served on 127.0.0.1 (never on every interface unless told: the
 * figures name scopes and counts an outsider has no business reading).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { registerBotMetrics, loadPromClient, type BotMetricsOptions } from './collector.js'

/** Where the listener listens. */
export interface MetricsListenerOptions extends Omit<BotMetricsOptions, 'registry'> {
  /** The interface. @default '127.0.0.1' */
  host?: string
  /** The port (0: any free one). @default 9464 */
  port?: number
}

/** The listener's defaults (9464: the port OpenTelemetry's Prometheus exporter listens on by default). */
export const METRICS_LISTENER_DEFAULTS = {
  /** Loopback only: a scraper on another host needs the address said. */
  host: '127.0.0.1',
  /** The port OpenTelemetry's Prometheus exporter uses too. */
  port: 9464,
} as const

/** A running `/metrics` listener. */
export interface MetricsListener {
  /** `http://host:port/metrics`. */
  readonly url: string
  /** Stops listening. Idempotent. */
  close(): Promise<void>
}

/** Serves the bot's metrics at `GET /metrics`; resolves once listening. */
export async function serveMetrics(options: MetricsListenerOptions): Promise<MetricsListener> {
  const client = await loadPromClient()
  const registry = new client.Registry()
  await registerBotMetrics({ ...options, registry })
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n')
      return
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`),
    )
  })
  const host = options.host ?? METRICS_LISTENER_DEFAULTS.host
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? METRICS_LISTENER_DEFAULTS.port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        // A scraper's keep-alive connection would hold close() open until it times out.
        server.closeAllConnections()
      })),
  }
}
