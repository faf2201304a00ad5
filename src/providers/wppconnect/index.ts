/**
 * `botmesh/providers/wppconnect`: a WhatsApp transport on a WPPConnect Server (a webhook server
 * with a secret in its URL, REST sends with the session's token, media by message id), and the
 * WPPConnect media reference (the message id). No driver to load: the API is plain HTTP.
 *
 * @module botmesh/providers/wppconnect
 */
export { WppconnectProvider, type WppconnectProviderOptions } from './provider.js'
export { WPPCONNECT_LIMITS } from './limits.js'
export { wppconnectMediaRefCodec, type WppconnectMediaToken } from './media-ref.js'
export type { WppconnectWebhook, WppconnectId } from './messages.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
