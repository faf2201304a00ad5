/**
 * `botmesh/providers/evolution`: a WhatsApp transport on an Evolution API server (a webhook
 * server checking Evolution's signed token, REST sends, media by message key), and the Evolution
 * media reference (the message key; the inline base64 is never journaled). No driver to load: the
 * API is plain HTTP.
 *
 * @module botmesh/providers/evolution
 */
export { EvolutionProvider, type EvolutionProviderOptions } from './provider.js'
export { EVOLUTION_LIMITS } from './limits.js'
export { validWebhookToken, webhookTokenOf } from './webhook-token.js'
export { evolutionMediaRefCodec, type EvolutionMessageKey, type EvolutionMediaToken } from './media-ref.js'
export type { EvolutionWebhook, EvolutionMessage, EvolutionContent, EvolutionMedia } from './messages.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
