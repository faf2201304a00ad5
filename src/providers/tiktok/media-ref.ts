/**
 * TikTok media references: the journal keeps the media's coordinates (conversation, message and
 * media ids, which the download endpoint takes with the access token added at download time), or
 * for a sticker its URL on a TikTok CDN (`mediaRefHosts` replaces the list).
 */
import { defineMediaRefCodec, type MediaRefCodec } from '../shared/codec.js'
import { objectProblem, oneOfField, prop, stringField } from '../shared/shape.js'
import { hostList, journalableUrl, urlProblem, type UrlPolicy } from '../shared/url.js'

/** The token a stored reference rebuilds: media coordinates, or a sticker URL. */
export type TikTokMediaToken =
  | {
      /** The conversation the message is in. */
      conversationId: string
      /** The message that carried the media. */
      messageId: string
      /** The media's id within the message, which the download endpoint takes. */
      mediaId: string
    }
  | {
      /** The sticker's URL on a TikTok CDN (one of `mediaRefHosts`). */
      stickerUrl: string
    }

/** The TikTok CDNs stickers are served from. */
export const TIKTOK_MEDIA_HOSTS: readonly string[] = ['tiktokcdn.com', 'tiktokcdn-us.com', 'ibyteimg.com']

/** Options of the TikTok codec. */
export interface TikTokMediaRefOptions {
  /** The hosts (and their subdomains) a sticker URL may be on; replaces the list. @default TIKTOK_MEDIA_HOSTS */
  mediaRefHosts?: readonly string[]
}

const ID = stringField(/^[\w.:-]+$/, 256)

type Data = { kind: 'media'; conversationId: string; messageId: string; mediaId: string } | { kind: 'sticker'; url: string }

/** The TikTok media-reference codec. */
export function tiktokMediaRefCodec(options: TikTokMediaRefOptions = {}): MediaRefCodec<TikTokMediaToken> {
  const policy: UrlPolicy = { hosts: hostList('tiktok', options.mediaRefHosts, TIKTOK_MEDIA_HOSTS), schemes: ['https:'] }
  return defineMediaRefCodec<Data, TikTokMediaToken>({
    channel: 'tiktok',
    pick(token) {
      const sticker = prop(token, 'stickerUrl')
      if (sticker !== undefined) {
        const url = journalableUrl(sticker, policy)
        return url === undefined ? undefined : { kind: 'sticker', url }
      }
      return {
        kind: 'media',
        conversationId: prop(token, 'conversationId') as string,
        messageId: prop(token, 'messageId') as string,
        mediaId: prop(token, 'mediaId') as string,
      }
    },
    problem(data) {
      if (data.kind === 'sticker') return objectProblem(data, { kind: oneOfField(['sticker']), url: (value) => urlProblem(value, policy) })
      return objectProblem(data, { kind: oneOfField(['media']), conversationId: ID, messageId: ID, mediaId: ID })
    },
    token: (data) =>
      data.kind === 'sticker'
        ? { stickerUrl: data.url }
        : { conversationId: data.conversationId, messageId: data.messageId, mediaId: data.mediaId },
  })
}
