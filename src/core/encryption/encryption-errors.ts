/**
 * The errors of a sealed value that is where it should not be: one the right key does not open
 * (altered, or moved to another scope, chat or record), and one in clear where
 * `encryption.requireSealed` asks for sealed ones. Both are kept apart from a missing key: a key
 * you configure cures a missing key, nothing cures these but the value's own place or a backup.
 */
import { EncryptionKeyMissingError, ERROR_CODES, JournalUnavailableError } from '../errors/errors.js'

/**
 * A sealed value the key of its id opens nowhere but where it was sealed: its bytes were altered,
 * or it was moved to another scope, another chat (a record's clear `chatId` edited) or another
 * record. Code `ENCRYPTION_ALTERED`; a subclass of `EncryptionKeyMissingError` (reason `'altered'`),
 * so a bot treats it as it treats a record it cannot open: never run, charged, dead-lettered or purged.
 */
export class SealedValueAlteredError extends EncryptionKeyMissingError {
  constructor(what: string, keyId: string) {
    super(what, keyId, 'altered')
  }
}

/**
 * A value in clear where `durability.encryption.requireSealed` is set: once a journal is sealed
 * (`botmesh rekey`), clear content can only have been written by someone with write access to the
 * store, so it is never given to the bot. Code `ENCRYPTION_UNSEALED`, not retryable.
 */
export class UnsealedValueError extends JournalUnavailableError {
  constructor(what: string) {
    super(
      `${what} is in clear, and durability.encryption.requireSealed refuses clear values: ` +
        'it was not written by a bot with encryption on (run `botmesh rekey` to seal what was written before, or remove it)',
      undefined,
      ERROR_CODES.ENCRYPTION_UNSEALED,
    )
  }
}

/** Why a sealed journal or store will not give a value back. */
export type UnreadableValueError = EncryptionKeyMissingError | UnsealedValueError
