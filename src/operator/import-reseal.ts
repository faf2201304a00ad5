/**
 * Sealed content is bound to its scope (format 2). A record `import --scope` moves to another scope
 * is therefore opened under the scope it was exported from and sealed again under the new one, with
 * the keys given; one the keys cannot open refuses the import before anything is written. A record
 * that stays in its scope, or holds nothing sealed, is imported as exported.
 */
import type { DurabilityBackend } from '../core/durability/journal/backend.js'
import type { InboxRecord, OutboxRecord } from '../core/durability/journal/records.js'
import type { KeyRing } from '../core/encryption/key-ring.js'
import { RecordSealer, SEALED_FIELDS } from '../core/encryption/record-sealer.js'
import { boundScope } from '../core/encryption/sealed-backend.js'
import { isSealed } from '../core/encryption/sealed-text.js'
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import type { ExportLine } from './export.js'

/** A line of an import: where it goes (`scope`), and the scope it was exported from. */
export interface ImportLine extends ExportLine {
  from: string
}

export class ImportResealer {
  readonly #sealer: RecordSealer | undefined

  constructor(keys: KeyRing | undefined) {
    this.#sealer = keys?.current === undefined ? undefined : new RecordSealer(keys)
  }

  /** The record as it is written into `line.scope`. Throws `IMPORT_INVALID` when it moves scope sealed and cannot be sealed again. */
  moved(line: ImportLine, backend: DurabilityBackend): InboxRecord | OutboxRecord {
    const { kind, record, from, scope } = line
    const fields = SEALED_FIELDS[kind] ?? []
    if (
      boundScope(backend, from) === boundScope(backend, scope) ||
      !fields.some((field) => isSealed((record as unknown as Record<string, unknown>)[field]))
    )
      return record
    const which = `the ${kind} record "${kind === 'inbox' ? (record as InboxRecord).id : (record as OutboxRecord).key}"`
    if (!this.#sealer)
      throw refusal(
        `${which} moves from scope "${from}" to "${scope}" with sealed content, which is bound to its scope: ` +
          'give the keys (--keys <file> or BOTMESH_ENCRYPTION_KEYS) so import seals it again under the new scope',
      )
    const opened = this.#sealer.open(boundScope(backend, from), kind, record)
    if (opened.unreadable) throw refusal(`${which} cannot be moved to scope "${scope}": ${opened.unreadable.message}`)
    return this.#sealer.seal(boundScope(backend, scope), kind, opened.record)
  }
}

function refusal(detail: string): BotmeshError {
  return new BotmeshError(ERROR_CODES.IMPORT_INVALID, `${detail}; nothing was imported`)
}
