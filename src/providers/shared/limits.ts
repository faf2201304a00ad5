/**
 * The limits of the provider layer, named once with their defaults. Every stored value read back
 * from the journal is bounded by one of these before it is used.
 */
export const MEDIA_REF_LIMITS = {
  /** The longest URL a codec journals or accepts back. @default 4096 */
  urlLengthMax: 4096,
  /** The longest id (file_id, media id, message id) a codec journals or accepts back. @default 512 */
  idLengthMax: 512,
  /** The highest attachment index of an email. @default 999 */
  emailAttachmentIndexMax: 999,
  /** The longest RFC 5322 Message-ID (a header line is at most 998 characters). @default 998 */
  emailMessageIdLengthMax: 998,
  /** The longest base64 of a WhatsApp media key or hash (a 32-byte key is 44 characters). @default 88 */
  base64FieldLengthMax: 88,
} as const
