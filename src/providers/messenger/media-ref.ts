/**
 * Messenger media references: the journal keeps the attachment URL. Only URLs on the Meta CDNs are
 * journaled and accepted back (`mediaRefHosts` replaces the list). The URLs are signed and expire,
 * so a late replay fails to download; the page access token is added at download time, never
 * journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import { hostedUrlCodec, type HostedMediaToken } from '../shared/hosted-url.js'
import { hostList } from '../shared/url.js'

/** The token a stored reference rebuilds. */
export type MessengerMediaToken = HostedMediaToken

/** The Meta CDNs attachment URLs are served from. */
export const MESSENGER_MEDIA_HOSTS: readonly string[] = ['fbcdn.net', 'fbsbx.com', 'cdninstagram.com']

/** Options of the Messenger codec. */
export interface MessengerMediaRefOptions {
  /** The hosts (and their subdomains) accepted; replaces the list. @default MESSENGER_MEDIA_HOSTS */
  mediaRefHosts?: readonly string[]
}

/** The Messenger media-reference codec. */
export function messengerMediaRefCodec(options: MessengerMediaRefOptions = {}): MediaRefCodec<MessengerMediaToken> {
  return hostedUrlCodec('messenger', { hosts: hostList('messenger', options.mediaRefHosts, MESSENGER_MEDIA_HOSTS), schemes: ['https:'] })
}
