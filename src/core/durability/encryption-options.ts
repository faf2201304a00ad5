/** `durability.encryption`: the keys by id, and which one seals new values. */
export interface EncryptionOptions {
  /** Keys by id (letters, digits, `_`, `.`, `-`): 32 bytes each, as a Buffer or base64. Keep every key the journal may still hold. */
  keys: Record<string, Buffer | Uint8Array | string>
  /** The id of the key new values are sealed under. */
  current: string
  /**
   * Refuse content in clear (`UnsealedValueError`, code `ENCRYPTION_UNSEALED`) instead of taking it
   * as written before encryption was turned on. Set it once `botmesh rekey` sealed the journal:
   * clear content can then only come from someone who writes to the store. @default false
   */
  requireSealed?: boolean
}
