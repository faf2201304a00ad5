/**
 * Email media references: the journal keeps the Message-ID, the attachment's index and a SHA-256
 * digest of its bytes, plus the IMAP UID and UIDVALIDITY when known. A download finds the message
 * (by UID when UIDVALIDITY still matches, else by Message-ID), takes the attachment at the index,
 * and checks the digest, so a different attachment is never handed to the handler. The mailbox
 * password is never journaled, nor are the attachment's bytes.
 */
import { createHash } from 'node:crypto'
import { defineMediaRefCodec, type MediaRefCodec } from '../shared/codec.js'
import { MEDIA_REF_LIMITS } from '../shared/limits.js'
import { integerField, objectProblem, prop, stringField } from '../shared/shape.js'

/** The token a stored reference rebuilds. */
export interface EmailMediaToken {
  /** The message's `Message-ID` header, angle brackets included. */
  messageId: string
  /** The attachment's position among the message's attachments, from 0. */
  index: number
  /** SHA-256 of the attachment's bytes, lowercase hex. */
  digest: string
  /** The message's IMAP UID in the mailbox, when known (always with `uidValidity`). */
  uid?: number
  /** The mailbox's IMAP UIDVALIDITY when `uid` was read; a UID counts only while it still matches. */
  uidValidity?: number
}

/** IMAP UIDs and UIDVALIDITY are non-zero 32-bit unsigned integers. */
const UINT32 = integerField(1, 2 ** 32 - 1)

type Data = { messageId: string; index: number; digest: string; uid?: number; uidValidity?: number }

/** The email media-reference codec. A live token without `digest` but with `content` (bytes) gets its digest computed. */
export function emailMediaRefCodec(): MediaRefCodec<EmailMediaToken> {
  return defineMediaRefCodec<Data, EmailMediaToken>({
    channel: 'email',
    pick(token) {
      const content = prop(token, 'content')
      const digest =
        prop(token, 'digest') ?? (content instanceof Uint8Array ? createHash('sha256').update(content).digest('hex') : undefined)
      const data: Data = { messageId: prop(token, 'messageId') as string, index: prop(token, 'index') as number, digest: digest as string }
      const uid = prop(token, 'uid')
      const uidValidity = prop(token, 'uidValidity')
      // A UID means nothing without its UIDVALIDITY: journal them together or not at all.
      if (typeof uid === 'number' && typeof uidValidity === 'number') Object.assign(data, { uid, uidValidity })
      return data
    },
    problem(data) {
      const problem = objectProblem(
        data,
        {
          messageId: stringField(/^<[^<>\s]+@[^<>\s]+>$/, MEDIA_REF_LIMITS.emailMessageIdLengthMax),
          index: integerField(0, MEDIA_REF_LIMITS.emailAttachmentIndexMax),
          digest: stringField(/^[0-9a-f]{64}$/, 64),
          uid: UINT32,
          uidValidity: UINT32,
        },
        ['uid', 'uidValidity'],
      )
      if (problem !== undefined) return problem
      return 'uid' in data === 'uidValidity' in data ? undefined : 'uid and uidValidity come together'
    },
    token: (data) => ({ ...data }),
  })
}
