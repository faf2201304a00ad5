/**
 * `botmesh/providers`: the kit for writing a provider. The contract itself is `IProvider` (from
 * `botmesh/core`); this adds the media-reference codec every channel folder builds on, the URL
 * policy of hosted media, the download policy every download goes through, the webhook servers'
 * limits, and the provider layer's errors.
 *
 * @module botmesh/providers
 */
export type {
  IProvider,
  InboundEvent,
  InboundSink,
  MediaRef,
  MediaType,
  OutboundContent,
  ProviderSendResult,
  StoredMediaRef,
  DeliveryReport,
  ProviderSendOptions,
} from '../core/provider/provider.js'
export { defineMediaRefCodec, checkOf, canonicalJson, MEDIA_REF_VERSION, type MediaRefCodec, type MediaRefSpec } from './shared/codec.js'
export { hostedUrlCodec, type HostedMediaToken, type HostedMediaOptions } from './shared/hosted-url.js'
export { urlProblem, journalableUrl, hostMatches, isIpLiteral, isCredentialParam, credentialParamIn, type UrlPolicy } from './shared/url.js'
export { objectProblem, stringField, integerField, booleanField, oneOfField, objectField, type FieldCheck } from './shared/shape.js'
export { WEBHOOK_SECRET_LENGTH_MIN, type MediaRefusal } from './shared/errors.js'
export { fetchMedia, DOWNLOAD_LIMITS, type DownloadPolicy, type DownloadCaller, type MediaTestOriginsOption } from './shared/download.js'
export { addressProblem } from './shared/address.js'
export { WEBHOOK_SERVER_LIMITS, type WebhookServerLimits, type WebhookEndpoint } from './shared/http-server.js'
export type { ChannelProviderOptions } from './shared/channel-provider.js'
export type { OnErrorOption } from './shared/error-reporter.js'
export { MEDIA_REF_LIMITS } from './shared/limits.js'
export { PROVIDER_CHANNELS, type ProviderChannel } from './channels.js'
