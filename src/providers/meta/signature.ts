/**
 * The `X-Hub-Signature-256` check: Meta signs each webhook POST with the app secret
 * (`sha256=<hex HMAC-SHA256 of the raw body>`). A request without a valid signature is refused
 * before its body is parsed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** The header value for `body` under `appSecret` (what Meta sends; tests sign with it too). */
export function signatureOf(body: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`
}

/** Whether `header` is the signature of `body` under `appSecret` (constant time). */
export function validSignature(header: string | string[] | undefined, body: Buffer, appSecret: string): boolean {
  if (typeof header !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(header)) return false
  return timingSafeEqual(Buffer.from(header), Buffer.from(signatureOf(body, appSecret)))
}
