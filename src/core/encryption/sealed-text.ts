/**
 * How a sealed value is written where its clear form was: one string,
 * `$sealed:<format>:<key id>:<check>:<base64url of IV, tag and ciphertext>`. A string, because it
 * fits every place a value may sit (a JSON field of a record, a text column of a message log); the
 * key id and its check value in clear, so a reader tells at once which key it needs and whether the
 * key it holds under that id is the right one, without decrypting.
 *
 * The format says what the associated data binds: format 1 the value's record and field (or its
 * chat in a store), format 2 also its scope and its record's clear chat id. Values are written in
 * format 2; format 1 is still read, so a journal sealed before keeps working until `botmesh rekey`
 * rewrites it.
 */
import { SealedValueAlteredError } from './encryption-errors.js'
import { EncryptionKeyMissingError } from '../errors/errors.js'
import type { KeyRing } from './key-ring.js'
import { SEALED_MARK } from '../durability/journal/record-text.js'

/** The format values are sealed in. */
export const SEALED_FORMAT = 2
/** Every value sealed in the current format starts with this. */
export const SEALED_PREFIX = `$sealed:${SEALED_FORMAT}:`

const SEALED_FORM = /^\$sealed:([12]):([A-Za-z0-9_.-]{1,64}):([0-9a-f]{8}):([A-Za-z0-9_-]+)$/

/** A format a sealed value is read in. */
export type SealedFormat = 1 | 2

/** Where a value belongs, as each format's associated data names it. */
export interface SealedPlace {
  /** Format 1: the record kind, key and field, or the store value's kind and chat. */
  v1: string
  /** Format 2: as format 1, with the scope and the record's chat id. */
  v2: string
}

/** The parts of a sealed string, or undefined when `value` is not one. */
function parseSealed(value: unknown): { format: SealedFormat; keyId: string; check: string; data: string } | undefined {
  if (typeof value !== 'string' || !value.startsWith(SEALED_MARK)) return undefined
  const match = SEALED_FORM.exec(value)
  return match ? { format: Number(match[1]) as SealedFormat, keyId: match[2]!, check: match[3]!, data: match[4]! } : undefined
}

/** Whether `value` is a sealed string. */
export function isSealed(value: unknown): value is string {
  return parseSealed(value) !== undefined
}

/** The id of the key `value` is sealed under, or undefined when it is not sealed. */
export function sealedKeyOf(value: unknown): string | undefined {
  return parseSealed(value)?.keyId
}

/** The format `value` is sealed in, or undefined when it is not sealed. */
export function sealedFormatOf(value: unknown): SealedFormat | undefined {
  return parseSealed(value)?.format
}

/** Why `ring` cannot open `value` (a sealed string), or undefined when it can (or `value` is not sealed). */
export function unreadableBy(ring: KeyRing, value: unknown): 'missing' | 'wrong' | undefined {
  const parsed = parseSealed(value)
  if (!parsed) return undefined
  const verdict = ring.judge(parsed.keyId, parsed.check)
  return verdict === 'ok' ? undefined : verdict
}

/** `plain` sealed under the ring's current key in the current format, bound to `place`. */
export function sealText(ring: KeyRing, plain: string, place: SealedPlace): string {
  const sealed = ring.encrypt(Buffer.from(plain, 'utf8'), Buffer.from(place.v2, 'utf8'))
  return `${SEALED_PREFIX}${sealed.keyId}:${sealed.check}:${sealed.data.toString('base64url')}`
}

/**
 * The clear text of a sealed string, opened with the associated data of its format. Throws
 * `EncryptionKeyMissingError` (naming `what` and the key id) when the ring lacks the key or holds
 * another key under its id, and `SealedValueAlteredError` when the key is right and the value does
 * not open (altered, or moved from another scope, chat or record).
 */
export function openText(ring: KeyRing, sealed: string, place: SealedPlace, what: string): string {
  const parsed = parseSealed(sealed)
  if (!parsed) throw new TypeError(`${what} is not a sealed value`)
  const plain = ring.decrypt(
    { keyId: parsed.keyId, check: parsed.check, data: Buffer.from(parsed.data, 'base64url') },
    Buffer.from(parsed.format === 1 ? place.v1 : place.v2, 'utf8'),
  )
  if (plain === 'altered') throw new SealedValueAlteredError(what, parsed.keyId)
  if (typeof plain === 'string') throw new EncryptionKeyMissingError(what, parsed.keyId, plain)
  return plain.toString('utf8')
}
