/**
 * `botmesh/providers/gohighlevel`: a HighLevel (LeadConnector) conversations transport (a webhook
 * server checking HighLevel's signature, sends through the Conversations API, attachments by
 * hosted URL), and the GoHighLevel media reference (the hosted http(s) URL). No driver to load:
 * the API is plain HTTP.
 *
 * @module botmesh/providers/gohighlevel
 */
export { GoHighLevelProvider, type GoHighLevelProviderOptions } from './provider.js'
export { GOHIGHLEVEL_LIMITS, GOHIGHLEVEL_API_VERSION } from './limits.js'
export { validSignature, signatureHeaderOf } from './signature.js'
export { gohighlevelMediaRefCodec, type GoHighLevelMediaToken, type GoHighLevelMediaRefOptions } from './media-ref.js'
export type { GoHighLevelWebhook } from './messages.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
