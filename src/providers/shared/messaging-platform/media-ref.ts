/**
 * The media references of the channels on the Messenger Platform (Messenger, Instagram): the
 * journal keeps the attachment URL. Only URLs on Meta's CDNs are journaled and accepted back
 * (`mediaRefHosts` replaces the list). The URLs are signed and expire, so a late replay fails to
 * download; the access token is added at download time, never journaled.
 */
import type { MediaRefCodec } from '../codec.js'
import { hostedUrlCodec, type HostedMediaToken } from '../hosted-url.js'
import { hostList } from '../url.js'

/** The Meta CDNs attachment URLs are served from, on Messenger and Instagram alike. */
export const MESSAGING_MEDIA_HOSTS: readonly string[] = ['fbcdn.net', 'fbsbx.com', 'cdninstagram.com']

/** The option of a Messenger Platform channel's codec. */
export interface MessagingMediaRefOptions {
  /** The hosts (and their subdomains) accepted; replaces the list. @default the channel's media hosts (Meta's CDNs) */
  mediaRefHosts?: readonly string[]
}

/** `channel`'s codec: attachment URLs over HTTPS, on `mediaRefHosts` or else on `defaultHosts`. */
export function messagingMediaRefCodec(
  channel: string,
  options: MessagingMediaRefOptions,
  defaultHosts: readonly string[],
): MediaRefCodec<HostedMediaToken> {
  return hostedUrlCodec(channel, { hosts: hostList(channel, options.mediaRefHosts, defaultHosts), schemes: ['https:'] })
}
