/**
 * Which parts of a journal record are sealed, and sealing and opening a whole record. The content
 * is sealed: an inbound event (its text, media reference, interaction), a send's payload and its
 * fingerprint (a hash of short content can be guessed back). Ids, states, times, leases, attempts
 * and errors stay clear, so indexes, leases, listing and retention work on sealed records as on
 * clear ones.
 *
 * Each field is bound to its scope, its record kind, key and clear chat id, and its name (the
 * AES-GCM associated data, format 2): a sealed value copied into another record or scope, or a
 * record whose chat id was edited, does not open. Format 1 (kind, key and field) is still read.
 */
import type { Json } from '../durability/journal/kv.js'
import { recordKey, type RecordKind, type RecordOf } from '../durability/journal/records.js'
import { UnsealedValueError, type UnreadableValueError } from './encryption-errors.js'
import { EncryptionKeyMissingError } from '../errors/errors.js'
import type { KeyRing } from './key-ring.js'
import { ENCRYPTION_LIMITS } from './limits.js'
import { isSealed, openText, SEALED_FORMAT, sealedFormatOf, sealedKeyOf, sealText, unreadableBy, type SealedPlace } from './sealed-text.js'

/** The sealed fields of each record kind; the other kinds (heartbeats, turns, sessions) hold no content. */
export const SEALED_FIELDS: Readonly<Partial<Record<RecordKind, readonly string[]>>> = {
  inbox: ['event'],
  outbox: ['payload', 'fingerprint'],
}

/** A record with what could be opened opened, and why the rest could not (left sealed). */
export interface OpenedRecord<R> {
  record: R
  unreadable?: UnreadableValueError
}

/** How a sealer treats content in clear. */
export interface RecordSealerOptions {
  /** Content in clear is not opened but refused (`UnsealedValueError`), as a record the ring cannot open is. @default false */
  requireSealed?: boolean
}

/** Seals and opens records with one key ring, remembering recent pairs so a record rewritten unchanged is not sealed again. */
export class RecordSealer {
  /** A field's place (format 2) → the clear value and its sealed form (under the current key, in the current format), oldest first. */
  readonly #recent = new Map<string, { plain: unknown; sealed: string }>()

  constructor(
    readonly ring: KeyRing,
    private readonly options: RecordSealerOptions = {},
  ) {}

  /** The record as stored in `scope`: each content field sealed under the current key; fields already sealed are kept as they are. */
  seal<K extends RecordKind>(scope: string, kind: K, record: RecordOf[K]): RecordOf[K] {
    const fields = SEALED_FIELDS[kind]
    if (!fields || this.ring.current === undefined) return record
    const key = recordKey(kind, record)
    let sealed: Record<string, unknown> | undefined
    for (const field of fields) {
      const value = (record as unknown as Record<string, unknown>)[field]
      if (value === null || value === undefined || isSealed(value)) continue
      sealed ??= { ...record }
      sealed[field] = this.#sealField(fieldPlace(scope, kind, key, record, field), value)
    }
    return (sealed ?? record) as RecordOf[K]
  }

  /**
   * The record of `scope` with its content opened; a field the ring cannot open stays sealed, and
   * (under `requireSealed`) a field in clear stays as it is, and either is named in `unreadable`.
   */
  open<K extends RecordKind>(scope: string, kind: K, record: RecordOf[K]): OpenedRecord<RecordOf[K]> {
    const fields = SEALED_FIELDS[kind]
    if (!fields) return { record }
    let opened: Record<string, unknown> | undefined
    let unreadable: UnreadableValueError | undefined
    for (const field of fields) {
      const value = (record as unknown as Record<string, unknown>)[field]
      if (!isSealed(value)) {
        if (value !== null && value !== undefined && this.options.requireSealed)
          unreadable ??= new UnsealedValueError(`the ${field} of ${describe(kind, recordKey(kind, record))}`)
        continue
      }
      try {
        const key = recordKey(kind, record)
        const plain = this.#openField(fieldPlace(scope, kind, key, record, field), value, describe(kind, key))
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

  /** Whether any content field of the record is in clear, or sealed under another key than the current one or in an older format. */
  needsRekey<K extends RecordKind>(kind: K, record: RecordOf[K]): boolean {
    return (SEALED_FIELDS[kind] ?? []).some((field) => {
      const value = (record as unknown as Record<string, unknown>)[field]
      return value !== null && value !== undefined && !this.#current(value)
    })
  }

  /** Whether `value` is sealed under the current key in the current format. */
  #current(value: unknown): boolean {
    return sealedKeyOf(value) === this.ring.current && sealedFormatOf(value) === SEALED_FORMAT
  }

  #sealField(place: SealedPlace, value: unknown): string {
    const recent = this.#recent.get(place.v2)
    if (recent && recent.plain === value) return recent.sealed
    const sealed = sealText(this.ring, JSON.stringify(value), place)
    this.#remember(place.v2, value, sealed)
    return sealed
  }

  #openField(place: SealedPlace, value: string, what: string): Json {
    const recent = this.#recent.get(place.v2)
    if (recent && recent.sealed === value) return recent.plain as Json
    const plain = JSON.parse(openText(this.ring, value, place, what)) as Json
    // Only values under the current key and format are remembered: any other is sealed again when its record is next written.
    if (this.#current(value)) this.#remember(place.v2, plain, value)
    return plain
  }

  #remember(id: string, plain: unknown, sealed: string): void {
    this.#recent.delete(id)
    this.#recent.set(id, { plain, sealed })
    if (this.#recent.size > ENCRYPTION_LIMITS.recentSealsMax) this.#recent.delete(this.#recent.keys().next().value!)
  }
}

/** Where a record's field belongs: format 1 names its kind, key and field; format 2 its scope and clear chat id too. */
function fieldPlace<K extends RecordKind>(scope: string, kind: K, key: string, record: RecordOf[K], field: string): SealedPlace {
  const chatId = (record as { chatId?: unknown }).chatId ?? null
  return { v1: `${kind}\0${key}\0${field}`, v2: JSON.stringify(['journal', scope, kind, key, chatId, field]) }
}

function describe(kind: RecordKind, key: string): string {
  return `the ${kind} record "${key}"`
}
