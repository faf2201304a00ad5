/**
 * `botmesh/providers/baileys`: the Baileys (WhatsApp Web) media reference, for a provider of this channel
 * (`serializeMediaRef` / `rehydrateMediaRef` delegate to the codec; see the README's "Write your own
 * provider").
 */
export {
  BAILEYS_MEDIA_KINDS,
  baileysMediaRefCodec,
  type BaileysMediaKind,
  type BaileysMessageKey,
  type BaileysMediaContent,
  type BaileysMediaToken,
  type BaileysMediaRefOptions,
} from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
