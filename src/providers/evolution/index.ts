/**
 * `botmesh/providers/evolution`: the Evolution API media reference, for a provider of this channel
 * (`serializeMediaRef` / `rehydrateMediaRef` delegate to the codec; see the README's "Write your own
 * provider").
 */
export { evolutionMediaRefCodec, type EvolutionMessageKey, type EvolutionMediaToken } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
