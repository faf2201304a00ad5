/**
 * Messenger media references: the journal keeps the attachment URL. Only URLs on the Meta CDNs are
 * journaled and accepted back (`mediaRefHosts` replaces the list). The URLs are signed and expire,
 * so a late replay fails to download; the page access token is added at download time, never
 * journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import type { HostedMediaToken } from '../shared/hosted-url.js'
import { MESSAGING_MEDIA_HOSTS, messagingMediaRefCodec, type MessagingMediaRefOptions } from '../shared/messaging-platform/media-ref.js'

/** The token a stored reference rebuilds. */
export type MessengerMediaToken = HostedMediaToken

/** The Meta CDNs attachment URLs are served from. */
export const MESSENGER_MEDIA_HOSTS: readonly string[] = MESSAGING_MEDIA_HOSTS

/** Options of the Messenger codec: `mediaRefHosts` (default MESSENGER_MEDIA_HOSTS). */
export type MessengerMediaRefOptions = MessagingMediaRefOptions

/** The Messenger media-reference codec. */
export function messengerMediaRefCodec(options: MessengerMediaRefOptions = {}): MediaRefCodec<MessengerMediaToken> {
  return messagingMediaRefCodec('messenger', options, MESSENGER_MEDIA_HOSTS)
}
