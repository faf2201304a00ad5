/**
 * The signatures HighLevel puts on its webhooks, over the raw body: `X-GHL-Signature` (Ed25519,
 * base64) and, on older OAuth app webhooks, `X-WH-Signature` (RSA-SHA256, base64). The provider is
 * given HighLevel's published public key; its type says which header is checked. A request without
 * a valid signature is refused before its body is parsed. The signed body carries `timestamp` and
 * `webhookId`: a body whose `timestamp` is missing or more than 5 minutes off the clock is refused,
 * and so is a `webhookId` (or, without one, a signature) already taken (`freshWebhook`).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto'
import { isFresh, REPLAY_LIMITS, type ReplayCache } from '../shared/replay.js'

/** The header a key of this type verifies. */
export function signatureHeaderOf(key: KeyObject): 'x-ghl-signature' | 'x-wh-signature' {
  return key.asymmetricKeyType === 'ed25519' ? 'x-ghl-signature' : 'x-wh-signature'
}

/** Parses a PEM public key; Ed25519 or RSA. */
export function webhookKeyOf(pem: string): KeyObject {
  const key = createPublicKey(pem)
  if (key.asymmetricKeyType !== 'ed25519' && key.asymmetricKeyType !== 'rsa')
    throw new Error(`the key is ${key.asymmetricKeyType}, not Ed25519 or RSA`)
  return key
}

/** Whether `signature` (base64) signs `body` under `key`. */
export function validSignature(signature: string | string[] | undefined, body: Buffer, key: KeyObject): boolean {
  if (typeof signature !== 'string' || !/^[A-Za-z0-9+/=]{16,1024}$/.test(signature)) return false
  try {
    return verify(key.asymmetricKeyType === 'ed25519' ? null : 'sha256', body, key, Buffer.from(signature, 'base64'))
  } catch {
    return false
  }
}

/** The key a signed webhook is remembered by: its `webhookId`, or its signature when it has none. */
export function replayKeyOf(webhook: { webhookId?: unknown }, signature: string): string {
  return typeof webhook.webhookId === 'string' && webhook.webhookId !== '' ? `id:${webhook.webhookId}` : `signature:${signature}`
}

/**
 * Whether a validly signed webhook is fresh and new at `now`: its `timestamp` (ISO 8601, or ms)
 * within 5 minutes of the clock, and its replay key (`replayKeyOf`) not taken before; takes the key.
 */
export function freshWebhook(
  webhook: { timestamp?: unknown; webhookId?: unknown },
  signature: string,
  replays: ReplayCache,
  now: number,
): boolean {
  const { timestamp } = webhook
  const sentAt = typeof timestamp === 'string' ? Date.parse(timestamp) : typeof timestamp === 'number' ? timestamp : NaN
  if (!isFresh(sentAt, now)) return false
  return replays.firstSight(replayKeyOf(webhook, signature), sentAt + REPLAY_LIMITS.freshnessMs, now)
}
