/**
 * Instagram media references: the journal keeps the attachment URL. Only URLs on the Meta CDNs are
 * journaled and accepted back (`mediaRefHosts` replaces the list). The URLs are signed and expire,
 * so a late replay fails to download; the page access token is added at download time, never
 * journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import type { HostedMediaToken } from '../shared/hosted-url.js'
import { MESSAGING_MEDIA_HOSTS, messagingMediaRefCodec, type MessagingMediaRefOptions } from '../shared/messaging-platform/media-ref.js'

/** The token a stored reference rebuilds. */
export type InstagramMediaToken = HostedMediaToken

/** The Meta CDNs attachment URLs are served from. */
export const INSTAGRAM_MEDIA_HOSTS: readonly string[] = MESSAGING_MEDIA_HOSTS

/** Options of the Instagram codec: `mediaRefHosts` (default INSTAGRAM_MEDIA_HOSTS). */
export type InstagramMediaRefOptions = MessagingMediaRefOptions

/** The Instagram media-reference codec. */
export function instagramMediaRefCodec(options: InstagramMediaRefOptions = {}): MediaRefCodec<InstagramMediaToken> {
  return messagingMediaRefCodec('instagram', options, INSTAGRAM_MEDIA_HOSTS)
}
