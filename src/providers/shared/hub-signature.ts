/**
 * The webhook checks of Meta's platforms (WhatsApp Cloud, Messenger, Instagram). Meta signs each
 * POST with the app secret in `X-Hub-Signature-256` (`sha256=<hex HMAC-SHA256 of the raw body>`),
 * and a request without a valid signature is refused before its body is parsed. A GET is the
 * subscription check: `hub.mode=subscribe` with your verify token, answered with `hub.challenge`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { WebhookResponse } from './http-server.js'

/** The header value for `body` under `appSecret` (what Meta sends; tests sign with it too). */
export function signatureOf(body: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`
}

/** Whether `header` is the signature of `body` under `appSecret` (constant time). */
export function validSignature(header: string | string[] | undefined, body: Buffer, appSecret: string): boolean {
  if (typeof header !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(header)) return false
  return timingSafeEqual(Buffer.from(header), Buffer.from(signatureOf(body, appSecret)))
}

/** Answers the subscription check: the challenge with the verify token, 403 otherwise. */
export function verifySubscription(params: URLSearchParams, verifyToken: string): WebhookResponse {
  const token = Buffer.from(params.get('hub.verify_token') ?? '')
  const expected = Buffer.from(verifyToken)
  const matches = token.length === expected.length && timingSafeEqual(token, expected)
  if (params.get('hub.mode') !== 'subscribe' || !matches) return { status: 403 }
  return { status: 200, body: params.get('hub.challenge') ?? '' }
}
