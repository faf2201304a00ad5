/**
 * `botmesh/providers/gupshup`: a WhatsApp transport on Gupshup (a callback server with a secret in
 * its URL, sends through the send message API, media by hosted URL), and the Gupshup media
 * reference (the hosted http(s) URL). No driver to load: the API is plain HTTP.
 *
 * @module botmesh/providers/gupshup
 */
export { GupshupProvider, type GupshupProviderOptions } from './provider.js'
export { GUPSHUP_LIMITS } from './limits.js'
export { gupshupMediaRefCodec, type GupshupMediaToken, type GupshupMediaRefOptions } from './media-ref.js'
export type { GupshupCallback, GupshupMessage } from './messages.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
