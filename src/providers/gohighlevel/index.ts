/**
 * `botmesh/providers/gohighlevel`: the GoHighLevel media reference, for a provider of this channel
 * (`serializeMediaRef` / `rehydrateMediaRef` delegate to the codec; see the README's "Write your own
 * provider").
 */
export { gohighlevelMediaRefCodec, type GoHighLevelMediaToken, type GoHighLevelMediaRefOptions } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
