/**
 * `botmesh/providers/messenger`: a Facebook Page on Messenger over the Graph API (webhook server,
 * Send API, attachment downloads), and the Messenger media reference (the attachment URL). No
 * driver to load: the Graph API is plain HTTPS.
 *
 * @module botmesh/providers/messenger
 */
export { MessengerProvider, type MessengerProviderOptions } from './provider.js'
export { MESSENGER_LIMITS } from './limits.js'
export { MESSENGER_MEDIA_HOSTS, messengerMediaRefCodec, type MessengerMediaToken, type MessengerMediaRefOptions } from './media-ref.js'
export { signatureOf, validSignature } from '../shared/hub-signature.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
export type { MessagingProviderOptions } from '../shared/messaging-platform/provider.js'
export type { MessagingMediaRefOptions } from '../shared/messaging-platform/media-ref.js'
