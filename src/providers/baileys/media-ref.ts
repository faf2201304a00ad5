/**
 * Baileys media references. A live Baileys message is the original WhatsApp message object; the
 * journal keeps only the media content (CDN url, direct path, media key and hashes) and the
 * message key. The thumbnail, caption and quoted context are never journaled, nor is view-once
 * media unless `durableMedia: { viewOnce: true }`. Baileys re-requests expired CDN media from the
 * sender's phone at download time, as it does for live media.
 */
import { defineMediaRefCodec, type MediaRefCodec } from '../shared/codec.js'
import { MEDIA_REF_LIMITS } from '../shared/limits.js'
import { base64Of, objectProblem, oneOfField, prop, stringField } from '../shared/shape.js'
import { credentialParamIn, urlProblem } from '../shared/url.js'
import { MESSAGE_KEY, messageKeyOf } from '../shared/whatsapp.js'

/** The message kinds that carry downloadable media. */
export const BAILEYS_MEDIA_KINDS = ['imageMessage', 'videoMessage', 'audioMessage', 'documentMessage', 'stickerMessage'] as const
/** One of `BAILEYS_MEDIA_KINDS`. */
export type BaileysMediaKind = (typeof BAILEYS_MEDIA_KINDS)[number]

/** A WhatsApp message key. */
export interface BaileysMessageKey {
  /** The chat's JID: the contact (`…@s.whatsapp.net`, `…@lid`) or the group (`…@g.us`). */
  remoteJid: string
  /** Whether this account sent the message. */
  fromMe: boolean
  /** The message's id, as WhatsApp assigned it. */
  id: string
  /** In a group, the JID of the member who sent the message. */
  participant?: string
}

/** The media content a download needs. */
export interface BaileysMediaContent {
  /** The encrypted file's URL on the WhatsApp CDN (`whatsapp.net`); absent when only `directPath` is known. */
  url?: string
  /** The encrypted file's path on the WhatsApp CDN, from which Baileys builds a URL. */
  directPath: string
  /** The 32-byte key the file is encrypted with. */
  mediaKey: Buffer
  /** SHA-256 of the decrypted file. */
  fileSha256: Buffer
  /** SHA-256 of the encrypted file, as served by the CDN. */
  fileEncSha256: Buffer
  /** The file's MIME type, as the sender reported it. */
  mimetype?: string
}

/** The token a stored reference rebuilds: a minimal WhatsApp message that Baileys' download takes. */
export interface BaileysMediaToken {
  /** The key of the message that carried the media. */
  key: BaileysMessageKey
  /** The media content under its kind (one of `BAILEYS_MEDIA_KINDS`), as in a WhatsApp message. */
  message: Partial<Record<BaileysMediaKind, BaileysMediaContent>>
}

/** Options of the Baileys codec. */
export interface BaileysMediaRefOptions {
  /** Which media that WhatsApp means to be seen once may still be journaled. @default { viewOnce: false } */
  durableMedia?: {
    /** Journal view-once media too (a replay can then show it again). @default false */
    viewOnce?: boolean
  }
}

/** The WhatsApp media CDN, where `url` points. */
const CDN = { hosts: ['whatsapp.net'] }
const KEY_B64 = stringField(/^[A-Za-z0-9+/]{43}=$/, MEDIA_REF_LIMITS.base64FieldLengthMax)
/** Wrappers that hold the real message inside `.message`. */
const WRAPPERS = [
  'ephemeralMessage',
  'viewOnceMessage',
  'viewOnceMessageV2',
  'viewOnceMessageV2Extension',
  'documentWithCaptionMessage',
] as const
const VIEW_ONCE_WRAPPERS: readonly string[] = ['viewOnceMessage', 'viewOnceMessageV2', 'viewOnceMessageV2Extension']
/** Wrappers nest at most this deep (ephemeral around view-once around the content). */
const WRAPPER_DEPTH_MAX = 4

type Data = {
  key: { remoteJid: string; fromMe: boolean; id: string; participant?: string }
  kind: BaileysMediaKind
  url?: string
  directPath: string
  mediaKey: string
  fileSha256: string
  fileEncSha256: string
  mimetype?: string
}

/** The Baileys media-reference codec. */
export function baileysMediaRefCodec(options: BaileysMediaRefOptions = {}): MediaRefCodec<BaileysMediaToken> {
  const viewOnce = options.durableMedia?.viewOnce ?? false
  return defineMediaRefCodec<Data, BaileysMediaToken>({
    channel: 'baileys',
    pick(token) {
      const found = findContent(prop(token, 'message'))
      if (!found || (found.viewOnce && !viewOnce)) return undefined
      const { content } = found
      const data: Data = {
        key: messageKeyOf(prop(token, 'key')),
        kind: found.kind,
        directPath: prop(content, 'directPath') as string,
        mediaKey: base64Of(prop(content, 'mediaKey')) as string,
        fileSha256: base64Of(prop(content, 'fileSha256')) as string,
        fileEncSha256: base64Of(prop(content, 'fileEncSha256')) as string,
      }
      const url = prop(content, 'url')
      if (typeof url === 'string') data.url = url
      const mimetype = prop(content, 'mimetype')
      if (typeof mimetype === 'string') data.mimetype = mimetype
      return data
    },
    problem: (data) =>
      objectProblem(
        data,
        {
          key: MESSAGE_KEY,
          kind: oneOfField(BAILEYS_MEDIA_KINDS),
          url: (value) => urlProblem(value, CDN),
          // A path on the CDN: never `//host` (a scheme-relative URL) nor a `..` segment, nor a credential in its query.
          directPath: (value) => directPathShape(value) ?? directPathCredential(value as string),
          mediaKey: KEY_B64,
          fileSha256: KEY_B64,
          fileEncSha256: KEY_B64,
          mimetype: stringField(/^[\w.+-]+\/[\w.+-]+(;\s?[\w.+-]+=[\w.+-]+)*$/, 255),
        },
        ['url', 'mimetype'],
      ),
    token(data) {
      const content: BaileysMediaContent = {
        directPath: data.directPath,
        mediaKey: Buffer.from(data.mediaKey, 'base64'),
        fileSha256: Buffer.from(data.fileSha256, 'base64'),
        fileEncSha256: Buffer.from(data.fileEncSha256, 'base64'),
        ...(data.url !== undefined ? { url: data.url } : {}),
        ...(data.mimetype !== undefined ? { mimetype: data.mimetype } : {}),
      }
      return { key: { ...data.key }, message: { [data.kind]: content } }
    },
  })
}

const directPathShape = stringField(/^\/(?!\/)(?!.*\.\.)[\w\-./%?=&]+$/, 2048)

function directPathCredential(path: string): string | undefined {
  const credential = credentialParamIn(path.includes('?') ? path.slice(path.indexOf('?')) : '')
  return credential === undefined ? undefined : `the direct path carries a credential parameter (${credential})`
}

/** The media content inside a WhatsApp message, through its wrappers, and whether it is view-once. */
function findContent(message: unknown): { kind: BaileysMediaKind; content: unknown; viewOnce: boolean } | undefined {
  let current = message
  let viewOnce = false
  for (let depth = 0; depth <= WRAPPER_DEPTH_MAX && current && typeof current === 'object'; depth++) {
    for (const kind of BAILEYS_MEDIA_KINDS) {
      const content = prop(current, kind)
      if (content && typeof content === 'object') return { kind, content, viewOnce: viewOnce || prop(content, 'viewOnce') === true }
    }
    const wrapper = WRAPPERS.find((name) => prop(current, name) !== undefined && prop(current, name) !== null)
    if (!wrapper) return undefined
    if (VIEW_ONCE_WRAPPERS.includes(wrapper)) viewOnce = true
    current = prop(prop(current, wrapper), 'message')
  }
  return undefined
}
