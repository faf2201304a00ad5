/**
 * `botmesh/providers/instagram`: an Instagram account's direct messages over the Instagram
 * Messaging API (webhook server, Send API, attachment downloads), and the Instagram media reference
 * (the attachment URL). No driver to load: the API is plain HTTPS.
 *
 * @module botmesh/providers/instagram
 */
export { InstagramProvider, type InstagramProviderOptions } from './provider.js'
export { INSTAGRAM_LIMITS } from './limits.js'
export { INSTAGRAM_MEDIA_HOSTS, instagramMediaRefCodec, type InstagramMediaToken, type InstagramMediaRefOptions } from './media-ref.js'
export { signatureOf, validSignature } from '../shared/hub-signature.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
export type { MessagingProviderOptions } from '../shared/messaging-platform/provider.js'
export type { MessagingMediaRefOptions } from '../shared/messaging-platform/media-ref.js'
