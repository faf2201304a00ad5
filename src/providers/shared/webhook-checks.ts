/**
 * The checks webhook routes compose: each answers a request it refuses, or undefined to let the
 * next check (or the body) decide, so a route's head reads as one chain
 * (`postTo(head, path) ?? urlSecret(head, secret)`).
 */
import type { WebhookHead, WebhookResponse } from './http-server.js'
import { sameSecret } from './secret.js'
import { WebhookRefusal } from './webhook-server.js'

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
