/**
 * `botmesh/providers/instagram`: the Instagram media reference, for a provider of this channel
 * (`serializeMediaRef` / `rehydrateMediaRef` delegate to the codec; see the README's "Write your own
 * provider").
 */
export { INSTAGRAM_MEDIA_HOSTS, instagramMediaRefCodec, type InstagramMediaToken, type InstagramMediaRefOptions } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
