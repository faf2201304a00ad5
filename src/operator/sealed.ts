/**
 * Content the keys given could not open, as the CLI and the dashboard show it: "(encrypted, key
 * k1)" instead of a sealed string, and a sentence saying which key a record needs.
 */
import type { InboxRecord, OutboxRecord } from '../core/durability/journal/records.js'
import { SEALED_FIELDS } from '../core/encryption/record-sealer.js'
import { sealedKeyOf } from '../core/encryption/sealed-text.js'
import type { WorkKind } from './records.js'

/** "(encrypted, key k1)" for a sealed value; undefined for any other. */
export function sealedLabel(value: unknown): string | undefined {
  const keyId = sealedKeyOf(value)
  return keyId === undefined ? undefined : `(encrypted, key ${keyId})`
}

/** The id of the key a record's content is still sealed under (the keys given did not open it), or undefined. */
export function sealedUnder(kind: WorkKind, record: InboxRecord | OutboxRecord): string | undefined {
  for (const field of SEALED_FIELDS[kind] ?? []) {
    const keyId = sealedKeyOf((record as unknown as Record<string, unknown>)[field])
    if (keyId !== undefined) return keyId
  }
  return undefined
}

/** What `show` adds to its "why" for such a record. */
export function sealedWhy(keyId: string): string {
  return (
    `Its content is sealed under encryption key "${keyId}": give that key (--keys <file> or BOTMESH_ENCRYPTION_KEYS) to read it. ` +
    `A bot without it leaves the record alone (never runs, charges, dead-letters or purges it) and reports ENCRYPTION_KEY_MISSING.`
  )
}
