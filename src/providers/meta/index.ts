/**
 * `botmesh/providers/meta`: a WhatsApp Cloud API transport (webhook server, Graph API sends,
 * media by id), and the Cloud API media reference (the media id). No driver to load: the Graph
 * API is plain HTTPS.
 *
 * @module botmesh/providers/meta
 */
export { MetaCloudProvider, type MetaCloudProviderOptions } from './provider.js'
export { metaError, type GraphErrorBody } from './errors.js'
export { META_LIMITS, GRAPH_API_VERSION_DEFAULT } from './limits.js'
export { signatureOf, validSignature } from '../shared/hub-signature.js'
export { metaMediaRefCodec, type MetaMediaToken } from './media-ref.js'
export type { MetaWebhookPayload, MetaWebhookMessage, MetaWebhookMedia, MetaWebhookStatus } from './messages.js'
export * from '../shared/channel-exports.js'
