/**
 * `botmesh/providers/tiktok`: a TikTok Business Account's direct messages over the Business
 * Messaging API (signed webhook, text and image sends, media downloads), and the TikTok media
 * reference (media coordinates, or a sticker URL). No driver to load: the API is plain HTTPS.
 *
 * @module botmesh/providers/tiktok
 */
export { TikTokProvider, type TikTokProviderOptions } from './provider.js'
export { tiktokError, type TikTokAnswer } from './api.js'
export { tiktokSignatureOf, validTikTokSignature } from './webhook.js'
export { TIKTOK_LIMITS, TIKTOK_API_DEFAULT } from './limits.js'
export { TIKTOK_MEDIA_HOSTS, tiktokMediaRefCodec, type TikTokMediaToken, type TikTokMediaRefOptions } from './media-ref.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
