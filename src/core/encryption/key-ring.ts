/**
 * The encryption keys of a bot or a tool: AES-256 keys by id, and the id new values are sealed
 * under. Values stay readable under every key the ring holds, so a key is rotated by adding a new
 * one as `current` and keeping the old one until `botmesh rekey` rewrote what it sealed.
 *
 * Keys live only in this object, as `KeyObject`s behind a private field: printing, logging or
 * serializing a ring shows key ids, never a key. Every message names a key by its id.
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'
import { ConfigError } from '../errors/errors.js'
import { optionNames, refuseUnknownOptions } from '../options/options.js'
import type { EncryptionOptions } from '../durability/config.js'

/** What a key id may be: it is written in clear beside every value it seals. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/

/** AES-256 takes a 32-byte key. */
const KEY_BYTES = 32
/** The GCM nonce: 12 random bytes per value. */
const IV_BYTES = 12
const TAG_BYTES = 16
/** What a key's check value is computed over: it tells a wrong key from a damaged value without decrypting. */
const CHECK_LABEL = 'botmesh key check v1'

/** One value sealed under a key. */
export interface Ciphertext {
  keyId: string
  /** 8 hex digits: the first 4 bytes of an HMAC of a fixed label under the key. */
  check: string
  /** IV, tag and ciphertext. */
  data: Buffer
}

/** Why a ring cannot open a value. */
export type UnreadableReason = 'missing' | 'wrong' | 'altered'

interface HeldKey {
  key: KeyObject
  check: string
}

/** AES-256-GCM keys by id. */
export class KeyRing {
  /** The id new values are sealed under; undefined for a ring without keys (a tool given none). */
  readonly current: string | undefined
  readonly #keys: ReadonlyMap<string, HeldKey>

  private constructor(keys: ReadonlyMap<string, HeldKey>, current: string | undefined) {
    this.#keys = keys
    this.current = current
  }

  /** A ring from the options; throws `ConfigError` naming `option` (never a key) when one is invalid. */
  static from(options: EncryptionOptions, option = 'durability.encryption'): KeyRing {
    refuseUnknownOptions(option, options, optionNames<EncryptionOptions>({ keys: true, current: true, requireSealed: true }))
    if (options.requireSealed !== undefined && typeof options.requireSealed !== 'boolean')
      throw new ConfigError(`${option}.requireSealed must be true or false; got ${typeof options.requireSealed}`)
    if (typeof options.keys !== 'object' || options.keys === null || Array.isArray(options.keys))
      throw new ConfigError(`${option}.keys must be an object of keys by id, e.g. { k1: <32 bytes as a Buffer or base64> }`)
    const keys = new Map<string, HeldKey>()
    for (const [id, given] of Object.entries(options.keys)) {
      if (!KEY_ID_PATTERN.test(id))
        throw new ConfigError(`${option}.keys: the key id ${JSON.stringify(id)} must be 1 to 64 letters, digits, "_", "." or "-"`)
      const bytes = keyBytes(given, `${option}.keys.${id}`)
      keys.set(id, { key: createSecretKey(bytes), check: checkValue(bytes) })
      bytes.fill(0)
    }
    if (typeof options.current !== 'string' || !keys.has(options.current)) {
      const ids = [...keys.keys()].join(', ') || 'none'
      throw new ConfigError(`${option}.current must name one of the keys (${ids}); got ${JSON.stringify(options.current)}`)
    }
    return new KeyRing(keys, options.current)
  }

  /** A ring without keys: sealed values stay sealed, and nothing is sealed. */
  static none(): KeyRing {
    return new KeyRing(new Map(), undefined)
  }

  /** The ids of the keys held, current first. */
  get ids(): string[] {
    return [...this.#keys.keys()].sort((a, b) => (a === this.current ? -1 : b === this.current ? 1 : a < b ? -1 : 1))
  }

  /** Whether `keyId` with `check` is a key of this ring; otherwise why not. */
  judge(keyId: string, check: string): 'ok' | 'missing' | 'wrong' {
    const held = this.#keys.get(keyId)
    if (!held) return 'missing'
    return held.check === check ? 'ok' : 'wrong'
  }

  /** Seals `plain` under the current key, bound to `aad` (a value moved to another place no longer opens). */
  encrypt(plain: Buffer, aad: Buffer): Ciphertext {
    const keyId = this.current
    if (keyId === undefined) throw new Error('a ring without keys cannot seal; check `current` before sealing')
    const held = this.#keys.get(keyId)!
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', held.key, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(aad)
    const body = Buffer.concat([cipher.update(plain), cipher.final()])
    return { keyId, check: held.check, data: Buffer.concat([iv, cipher.getAuthTag(), body]) }
  }

  /** The plain bytes, or why this ring cannot give them. */
  decrypt(sealed: Ciphertext, aad: Buffer): Buffer | UnreadableReason {
    const verdict = this.judge(sealed.keyId, sealed.check)
    if (verdict !== 'ok') return verdict
    if (sealed.data.length < IV_BYTES + TAG_BYTES) return 'altered'
    const decipher = createDecipheriv('aes-256-gcm', this.#keys.get(sealed.keyId)!.key, sealed.data.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    })
    decipher.setAAD(aad)
    decipher.setAuthTag(sealed.data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    try {
      return Buffer.concat([decipher.update(sealed.data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()])
    } catch {
      return 'altered'
    }
  }

  /** Shows the key ids only: a ring printed by a logger or a debugger gives no key away. */
  toJSON(): { current: string | undefined; keys: string[] } {
    return { current: this.current, keys: this.ids }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `KeyRing { current: ${JSON.stringify(this.current)}, keys: [${this.ids.map((id) => JSON.stringify(id)).join(', ')}] }`
  }
}

/** The 32 bytes of a key given as a Buffer or base64 (a copy, wiped by the caller); the message names the option, never the value. */
function keyBytes(given: unknown, option: string): Buffer {
  let bytes: Buffer
  if (Buffer.isBuffer(given) || given instanceof Uint8Array) bytes = Buffer.from(given)
  else if (typeof given === 'string' && /^[A-Za-z0-9+/_-]+={0,2}$/.test(given.trim())) bytes = Buffer.from(given.trim(), 'base64')
  else throw new ConfigError(`${option} must be 32 bytes as a Buffer or as base64 text; got ${given === null ? 'null' : typeof given}`)
  if (bytes.length !== KEY_BYTES) {
    bytes.fill(0)
    throw new ConfigError(`${option} must be ${KEY_BYTES} bytes (AES-256); it has ${bytes.length}`)
  }
  return bytes
}

function checkValue(key: Buffer): string {
  return createHmac('sha256', key).update(CHECK_LABEL).digest('hex').slice(0, 8)
}
