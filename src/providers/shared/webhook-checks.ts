/**
 * The checks webhook routes compose: each answers a request it refuses, or undefined to let the
 * next check (or the body) decide, so a route's head reads as one chain
 * (`postTo(head, path) ?? urlSecret(head, secret)`).
 */
import type { InboundEvent } from '../../core/provider/provider.js'
import type { WebhookHead, WebhookResponse } from './http-server.js'
import { sameSecret } from './secret.js'
import { WebhookRefusal, type WebhookRoute } from './webhook-server.js'

/** 404 for any path but `path`, 405 for any method but POST. */
export function postTo(head: WebhookHead, path: string): WebhookResponse | undefined {
  if (head.url.pathname !== path) return { status: 404 }
  if (head.method !== 'POST') return { status: 405 }
  return undefined
}

/** 401 unless the URL's `token` parameter is `secret` (for channels that sign nothing, so the URL they call carries a secret). */
export function urlSecret(head: WebhookHead, secret: string): WebhookResponse | undefined {
  return sameSecret(head.url.searchParams.get('token'), secret) ? undefined : { status: 401, body: 'invalid token' }
}

/**
 * 401 when the signature header `name` is missing. The signature covers the body, so it is
 * verified once the body is read; a request without one is refused before.
 */
export function signatureHeader(head: WebhookHead, name: string): WebhookResponse | undefined {
  return typeof head.headers[name] === 'string' ? undefined : { status: 401, body: 'invalid signature' }
}

/** The body of a request (or a string inside it) as JSON, or a `WebhookRefusal` answered 400. */
export function jsonOf<T>(body: Buffer | string): T {
  try {
    return JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as T
  } catch {
    throw new WebhookRefusal({ status: 400, body: 'the body is not JSON' })
  }
}

/** What a webhook secured by its URL's secret needs from its channel. */
export interface UrlSecretWebhook<Payload> {
  path: string
  /** The secret the URL's `token` parameter must carry. */
  secret: string
  /** The largest body taken; without it the server's default. */
  bodyBytesMax?: number
  /** The channel's event in a payload, or undefined for a payload it does not take (another app or session, a status). */
  eventOf: (payload: Payload) => InboundEvent | undefined
  sink: (event: InboundEvent) => Promise<void>
}

/**
 * The route of a channel that signs nothing (Gupshup, WPPConnect): a wrong path, method or URL
 * secret is refused before the body is read, a body that is not JSON is a 400, and the event the
 * channel reads in it is answered 200 only once the sink took it. A rejected sink (the journal is
 * down) throws: the server answers 500 and the channel delivers again.
 */
export function urlSecretWebhook<Payload>(webhook: UrlSecretWebhook<Payload>): WebhookRoute {
  const { path, secret, bodyBytesMax, eventOf, sink } = webhook
  return {
    ...(bodyBytesMax !== undefined ? { bodyBytesMax } : {}),
    head: (head) => postTo(head, path) ?? urlSecret(head, secret),
    async handle(request) {
      const event = eventOf(jsonOf<Payload>(request.body))
      if (event) await sink(event)
      return { status: 200 }
    },
  }
}
