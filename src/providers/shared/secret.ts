/** Comparing a secret a request carries with the configured one, in constant time. */
import { timingSafeEqual } from 'node:crypto'
import { WEBHOOK_SECRET_LENGTH_MIN, WeakWebhookSecretError } from './errors.js'

/** Whether `given` (a header or a field) is `expected`, compared in constant time. */
export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The value of a `Bearer` authorization header, or undefined. */
export function bearerOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim())
  return match?.[1]
}

/**
 * Checks an operator-chosen webhook secret: at least `WEBHOOK_SECRET_LENGTH_MIN` (16) and at most
 * `lengthMax` characters of A-Z, a-z, 0-9, _ and - (`anyCharacters` lifts the character rule).
 * Throws `WeakWebhookSecretError` otherwise.
 */
export function checkWebhookSecret(
  channel: string,
  option: string,
  secret: unknown,
  shape: { lengthMax?: number; anyCharacters?: boolean } = {},
): void {
  const max = shape.lengthMax ?? 256
  const rule = shape.anyCharacters
    ? `${WEBHOOK_SECRET_LENGTH_MIN}-${max} characters`
    : `${WEBHOOK_SECRET_LENGTH_MIN}-${max} characters of A-Z, a-z, 0-9, _ and -`
  if (typeof secret !== 'string' || secret.length === 0) throw new WeakWebhookSecretError(channel, option, `is required: ${rule}`)
  if (secret.length < WEBHOOK_SECRET_LENGTH_MIN || secret.length > max || (!shape.anyCharacters && !/^[\w-]+$/.test(secret)))
    throw new WeakWebhookSecretError(channel, option, `must be ${rule} (it has ${secret.length})`)
}
