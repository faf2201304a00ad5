/**
 * Instagram media references: the journal keeps the attachment URL. Only URLs on the Meta CDNs are
 * journaled and accepted back (`mediaRefHosts` replaces the list). The URLs are signed and expire,
 * so a late replay fails to download; the page access token is added at download time, never
 * journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import { hostedUrlCodec, type HostedMediaToken } from '../shared/hosted-url.js'
import { hostList } from '../shared/url.js'

/** The token a stored reference rebuilds. */
export type InstagramMediaToken = HostedMediaToken

/** The Meta CDNs attachment URLs are served from. */
export const INSTAGRAM_MEDIA_HOSTS: readonly string[] = ['fbcdn.net', 'fbsbx.com', 'cdninstagram.com']

/** Options of the Instagram codec. */
export interface InstagramMediaRefOptions {
  /** The hosts (and their subdomains) accepted; replaces the list. @default INSTAGRAM_MEDIA_HOSTS */
  mediaRefHosts?: readonly string[]
}

/** The Instagram media-reference codec. */
export function instagramMediaRefCodec(options: InstagramMediaRefOptions = {}): MediaRefCodec<InstagramMediaToken> {
  return hostedUrlCodec('instagram', { hosts: hostList('instagram', options.mediaRefHosts, INSTAGRAM_MEDIA_HOSTS), schemes: ['https:'] })
}
