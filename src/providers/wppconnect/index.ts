/**
 * `botmesh/providers/wppconnect`: the WPPConnect media reference, for a provider of this channel
 * (`serializeMediaRef` / `rehydrateMediaRef` delegate to the codec; see the README's "Write your own
 * provider").
 */
export { wppconnectMediaRefCodec, type WppconnectMediaToken } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
