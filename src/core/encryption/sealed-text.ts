/**
 * How a sealed value is written where its clear form was: one string,
 * `$sealed:1:<key id>:<check>:<base64url of IV, tag and ciphertext>`. A string, because it fits every
 * place a value may sit (a JSON field of a record, a text column of a message log); the key id and
 * its check value in clear, so a reader tells at once which key it needs and whether the key it
 * holds under that id is the right one, without decrypting.
 */
import { EncryptionKeyMissingError } from '../errors.js'
import type { KeyRing } from './key-ring.js'

/** Every sealed value starts with this. */
export const SEALED_PREFIX = '$sealed:1:'

const SEALED_FORM = /^\$sealed:1:([A-Za-z0-9_.-]{1,64}):([0-9a-f]{8}):([A-Za-z0-9_-]+)$/

/** The parts of a sealed string, or undefined when `value` is not one. */
function parseSealed(value: unknown): { keyId: string; check: string; data: string } | undefined {
  if (typeof value !== 'string' || !value.startsWith(SEALED_PREFIX)) return undefined
  const match = SEALED_FORM.exec(value)
  return match ? { keyId: match[1]!, check: match[2]!, data: match[3]! } : undefined
}

/** Whether `value` is a sealed string. */
export function isSealed(value: unknown): value is string {
  return parseSealed(value) !== undefined
}

/** The id of the key `value` is sealed under, or undefined when it is not sealed. */
export function sealedKeyOf(value: unknown): string | undefined {
  return parseSealed(value)?.keyId
}

/** Why `ring` cannot open `value` (a sealed string), or undefined when it can (or `value` is not sealed). */
export function unreadableBy(ring: KeyRing, value: unknown): 'missing' | 'wrong' | undefined {
  const parsed = parseSealed(value)
  if (!parsed) return undefined
  const verdict = ring.judge(parsed.keyId, parsed.check)
  return verdict === 'ok' ? undefined : verdict
}

/** `plain` sealed under the ring's current key, bound to `aad`. */
export function sealText(ring: KeyRing, plain: string, aad: string): string {
  const sealed = ring.encrypt(Buffer.from(plain, 'utf8'), Buffer.from(aad, 'utf8'))
  return `${SEALED_PREFIX}${sealed.keyId}:${sealed.check}:${sealed.data.toString('base64url')}`
}

/**
 * The clear text of a sealed string. Throws `EncryptionKeyMissingError` (naming `what` and the key
 * id) when the ring lacks the key, holds another key under its id, or the value was altered or
 * moved from another place.
 */
export function openText(ring: KeyRing, sealed: string, aad: string, what: string): string {
  const parsed = parseSealed(sealed)
  if (!parsed) throw new TypeError(`${what} is not a sealed value`)
  const plain = ring.decrypt(
    { keyId: parsed.keyId, check: parsed.check, data: Buffer.from(parsed.data, 'base64url') },
    Buffer.from(aad, 'utf8'),
  )
  if (typeof plain === 'string') throw new EncryptionKeyMissingError(what, parsed.keyId, plain)
  return plain.toString('utf8')
}
