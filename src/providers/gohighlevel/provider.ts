/**
 * `GoHighLevelProvider`: a HighLevel (LeadConnector) location's conversations on one message type
 * (SMS, WhatsApp, …). A webhook server (HighLevel's Ed25519 or RSA signature, answered 200 only
 * after the journal), sends through the Conversations API with the location's token, attachment
 * downloads from their hosted URLs, and HighLevel's failures as the outbox's error classes. The
 * token is never logged, journaled or put in an error.
 */
import type { KeyObject } from 'node:crypto'
import type { InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { ProviderConfigError } from '../shared/errors.js'
import type { DownloadPolicy } from '../shared/download.js'
import { downloadHosted, hostedDownloadPolicy } from '../shared/hosted-url.js'
import { channelHttpApi } from '../shared/http-api.js'
import { withoutTrailingSlashes } from '../shared/url.js'
import { ReplayCache } from '../shared/replay.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { describeError } from '../shared/redact.js'
import { requireStrings } from '../shared/required-options.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import type { ChannelProviderOptions } from '../shared/channel-provider.js'
import { WebhookProvider } from '../shared/webhook-provider.js'
import { goHighLevelFailure } from './errors.js'
import { GOHIGHLEVEL_LIMITS } from './limits.js'
import { gohighlevelMediaRefCodec, type GoHighLevelMediaRefOptions } from './media-ref.js'
import { sendGoHighLevel, type GoHighLevelTarget } from './send.js'
import { webhookKeyOf } from './signature.js'
import { gohighlevelWebhook } from './webhook.js'

/** Options of `GoHighLevelProvider`. */
export interface GoHighLevelProviderOptions extends GoHighLevelMediaRefOptions, ChannelProviderOptions {
  /** A location access token (OAuth or private integration) with `conversations/message.write`. Never logged nor journaled. */
  token: string
  /** The location (sub-account) whose conversations this provider serves. */
  locationId: string
  /** The message type replies go out on, and inbound messages are taken from. @default 'SMS' */
  messageType?: string
  /** The webhook server; `publicKey` is HighLevel's published webhook key (PEM, Ed25519 or the legacy RSA). */
  webhook: WebhookEndpoint & {
    /** The path it answers on. @default '/gohighlevel' */
    path?: string
    /** HighLevel's published webhook key (PEM, Ed25519 or the legacy RSA). */
    publicKey: string
    /** The clock a webhook's `timestamp` is checked against (ms since the epoch; tests set it). @default Date.now */
    clock?: () => number
    /** The most webhook ids remembered to refuse a replay. @default REPLAY_LIMITS.entriesMax (10 000) */
    replayEntriesMax?: number
  }
  /** The API root (a test double, a proxy). @default 'https://services.leadconnectorhq.com' */
  apiRoot?: string
}

/** A HighLevel location's conversations, as a botmesh provider. */
export class GoHighLevelProvider extends WebhookProvider<GoHighLevelProviderOptions> {
  readonly name = 'gohighlevel'
  readonly textLimit = GOHIGHLEVEL_LIMITS.textLimit
  readonly #target: GoHighLevelTarget
  readonly #publicKey: KeyObject
  readonly #downloadPolicy: DownloadPolicy

  constructor(options: GoHighLevelProviderOptions) {
    requireStrings('gohighlevel', options, ['token', 'locationId'])
    const publicKey = configuredWebhookKey(options.webhook?.publicKey)
    super({ channel: 'gohighlevel', options, secrets: [options.token], codec: gohighlevelMediaRefCodec(options) })
    this.#publicKey = publicKey
    this.#downloadPolicy = hostedDownloadPolicy('gohighlevel', options, GOHIGHLEVEL_LIMITS.downloadBytesMax)
    const api = channelHttpApi('gohighlevel', GOHIGHLEVEL_LIMITS, options, { secrets: [options.token], failure: goHighLevelFailure })
    const apiRoot = withoutTrailingSlashes(options.apiRoot ?? 'https://services.leadconnectorhq.com')
    this.#target = { api, apiRoot, token: options.token, messageType: options.messageType ?? 'SMS' }
  }

  protected route(sink: InboundSink): WebhookRoute {
    const { webhook, locationId } = this.options
    const path = webhook.path ?? '/gohighlevel'
    const messageType = this.#target.messageType
    const replays = new ReplayCache(webhook.replayEntriesMax)
    return gohighlevelWebhook({ path, publicKey: this.#publicKey, locationId, messageType, now: webhook.clock ?? Date.now, replays, sink })
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    return { messageId: await sendGoHighLevel(this.#target, chatId, content) }
  }

  /** An attachment from its hosted URL (no credentials are sent there). */
  async download(media: MediaRef): Promise<Buffer> {
    return downloadHosted(this.#target.api, media, this.#downloadPolicy)
  }
}

/** HighLevel's webhook key from the options, or `ProviderConfigError` saying what it must be. */
function configuredWebhookKey(pem: string): KeyObject {
  try {
    return webhookKeyOf(pem)
  } catch (error) {
    throw new ProviderConfigError('gohighlevel', `webhook.publicKey must be HighLevel's PEM public key: ${describeError(error, [])}`)
  }
}
