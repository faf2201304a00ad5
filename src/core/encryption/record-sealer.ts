/**
 * Which parts of a journal record are sealed, and sealing and opening a whole record. The content
 * is sealed: an inbound event (its text, media reference, interaction), a send's payload and its
 * fingerprint (a hash of short content can be guessed back). Ids, states, times, leases, attempts
 * and errors stay clear, so indexes, leases, listing and retention work on sealed records as on
 * clear ones.
 *
 * Each field is bound to its record kind, key and name (the AES-GCM associated data): a sealed
 * value copied into another record does not open there.
 */
import type { Json } from '../durability/journal/kv.js'
import { recordKey, type RecordKind, type RecordOf } from '../durability/journal/records.js'
import { EncryptionKeyMissingError } from '../errors.js'
import type { KeyRing } from './key-ring.js'
import { ENCRYPTION_LIMITS } from './limits.js'
import { isSealed, openText, sealedKeyOf, sealText, unreadableBy } from './sealed-text.js'

/** The sealed fields of each record kind; the other kinds (heartbeats, turns, sessions) hold no content. */
export const SEALED_FIELDS: Readonly<Partial<Record<RecordKind, readonly string[]>>> = {
  inbox: ['event'],
  outbox: ['payload', 'fingerprint'],
}

/** A record with what could be opened opened, and why the rest could not (left sealed). */
export interface OpenedRecord<R> {
  record: R
  unreadable?: EncryptionKeyMissingError
}

/** Seals and opens records with one key ring, remembering recent pairs so a record rewritten unchanged is not sealed again. */
export class RecordSealer {
  /** `<kind>\0<key>\0<field>` → the clear value and its sealed form (under the current key), oldest first. */
  readonly #recent = new Map<string, { plain: unknown; sealed: string }>()

  constructor(readonly ring: KeyRing) {}

  /** The record as stored: each content field sealed under the current key; fields already sealed are kept as they are. */
  seal<K extends RecordKind>(kind: K, record: RecordOf[K]): RecordOf[K] {
    const fields = SEALED_FIELDS[kind]
    if (!fields || this.ring.current === undefined) return record
    const key = recordKey(kind, record)
    let sealed: Record<string, unknown> | undefined
    for (const field of fields) {
      const value = (record as unknown as Record<string, unknown>)[field]
      if (value === null || value === undefined || isSealed(value)) continue
      sealed ??= { ...record }
      sealed[field] = this.#sealField(kind, key, field, value)
    }
    return (sealed ?? record) as RecordOf[K]
  }

  /** The record with its content opened; a field the ring cannot open stays sealed and is named in `unreadable`. */
  open<K extends RecordKind>(kind: K, record: RecordOf[K]): OpenedRecord<RecordOf[K]> {
    const fields = SEALED_FIELDS[kind]
    if (!fields) return { record }
    let opened: Record<string, unknown> | undefined
    let unreadable: EncryptionKeyMissingError | undefined
    for (const field of fields) {
      const value = (record as unknown as Record<string, unknown>)[field]
      if (!isSealed(value)) continue
      try {
        const plain = this.#openField(kind, recordKey(kind, record), field, value)
        opened ??= { ...record }
        opened[field] = plain
      } catch (error) {
        if (!(error instanceof EncryptionKeyMissingError)) throw error
        unreadable ??= error
      }
    }
    return { record: (opened ?? record) as RecordOf[K], ...(unreadable && { unreadable }) }
  }

  /** Why the ring cannot open the record, judged from the key ids and check values alone (no decryption), or undefined. */
  unreadable<K extends RecordKind>(kind: K, record: RecordOf[K]): EncryptionKeyMissingError | undefined {
    for (const field of SEALED_FIELDS[kind] ?? []) {
      const value = (record as unknown as Record<string, unknown>)[field]
      const reason = unreadableBy(this.ring, value)
      if (reason) return new EncryptionKeyMissingError(describe(kind, recordKey(kind, record)), sealedKeyOf(value)!, reason)
    }
    return undefined
  }

  /** Whether any content field of the record is sealed under another key than the current one, or not sealed at all. */
  needsRekey<K extends RecordKind>(kind: K, record: RecordOf[K]): boolean {
    return (SEALED_FIELDS[kind] ?? []).some((field) => {
      const value = (record as unknown as Record<string, unknown>)[field]
      return value !== null && value !== undefined && sealedKeyOf(value) !== this.ring.current
    })
  }

  #sealField(kind: RecordKind, key: string, field: string, value: unknown): string {
    const id = `${kind}\0${key}\0${field}`
    const recent = this.#recent.get(id)
    if (recent && recent.plain === value) return recent.sealed
    const sealed = sealText(this.ring, JSON.stringify(value), id)
    this.#remember(id, value, sealed)
    return sealed
  }

  #openField(kind: RecordKind, key: string, field: string, value: string): Json {
    const id = `${kind}\0${key}\0${field}`
    const recent = this.#recent.get(id)
    if (recent && recent.sealed === value) return recent.plain as Json
    const plain = JSON.parse(openText(this.ring, value, id, describe(kind, key))) as Json
    // Only values under the current key are remembered: a record opened under an older key is sealed again under the current one when it is next written.
    if (sealedKeyOf(value) === this.ring.current) this.#remember(id, plain, value)
    return plain
  }

  #remember(id: string, plain: unknown, sealed: string): void {
    this.#recent.delete(id)
    this.#recent.set(id, { plain, sealed })
    if (this.#recent.size > ENCRYPTION_LIMITS.recentSealsMax) this.#recent.delete(this.#recent.keys().next().value!)
  }
}

function describe(kind: RecordKind, key: string): string {
  return `the ${kind} record "${key}"`
}
