/**
 * `botmesh/providers/baileys`: a WhatsApp number linked as a WhatsApp Web device, on the `baileys`
 * library (an optional peer dependency, loaded only when the provider starts): messages over the
 * socket, read receipts once journaled, sends, media downloads (expired media re-requested from the
 * sender's phone), a leader-only session; and the Baileys media reference (the media content and
 * the message key).
 *
 * @module botmesh/providers/baileys
 */
export { BaileysProvider, type BaileysProviderOptions } from './provider.js'
export { baileysError } from './errors.js'
export { BAILEYS_LIMITS } from './limits.js'
export { BAILEYS_VERSION, type BaileysSocket, type BaileysSocketFactory } from './client.js'
export {
  BAILEYS_MEDIA_KINDS,
  baileysMediaRefCodec,
  type BaileysMediaKind,
  type BaileysMessageKey,
  type BaileysMediaContent,
  type BaileysMediaToken,
  type BaileysMediaRefOptions,
} from './media-ref.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
