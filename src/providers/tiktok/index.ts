/**
 * `botmesh/providers/tiktok`: the TikTok media reference, for a provider of this channel
 * (`serializeMediaRef` / `rehydrateMediaRef` delegate to the codec; see the README's "Write your own
 * provider").
 */
export { TIKTOK_MEDIA_HOSTS, tiktokMediaRefCodec, type TikTokMediaToken, type TikTokMediaRefOptions } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
