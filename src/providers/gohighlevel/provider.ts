/**
 * `GoHighLevelProvider`: a HighLevel (LeadConnector) location's conversations on one message type
 * (SMS, WhatsApp, …). A webhook server (HighLevel's Ed25519 or RSA signature, answered 200 only
 * after the journal), sends through the Conversations API with the location's token, attachment
 * downloads from their hosted URLs, and HighLevel's failures as the outbox's error classes. The
 * token is never logged, journaled or put in an error.
 */
import type { KeyObject } from 'node:crypto'
import type { InboundSink, IProvider, MediaRef, OutboundContent, ProviderSendResult, StoredMediaRef } from '../../core/provider/provider.js'
import { ProviderConfigError } from '../shared/errors.js'
import { declaredContentTypes, type DownloadPolicy } from '../shared/download.js'
import { errorReporter } from '../shared/error-reporter.js'
import { hostedDownloadPolicy, hostedUrlOf } from '../shared/hosted-url.js'
import { HttpApi } from '../shared/http-api.js'
import { ReplayCache } from '../shared/replay.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { describeError } from '../shared/redact.js'
import { requireStrings } from '../shared/required-options.js'
import { WebhookServer } from '../shared/webhook-server.js'
import { goHighLevelFailure } from './errors.js'
import { GOHIGHLEVEL_LIMITS } from './limits.js'
import { gohighlevelMediaRefCodec, type GoHighLevelMediaRefOptions } from './media-ref.js'
import { sendGoHighLevel, type GoHighLevelTarget } from './send.js'
import { webhookKeyOf } from './signature.js'
import { gohighlevelWebhook } from './webhook.js'

/** Options of `GoHighLevelProvider`. */
export interface GoHighLevelProviderOptions extends GoHighLevelMediaRefOptions {
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
  /** The longest an API call or a download may take. @default GOHIGHLEVEL_LIMITS.requestTimeoutMs (30 s) */
  requestTimeoutMs?: number
  /** Where webhook failures go (a journal that refused a message). @default console.error */
  onError?: (error: unknown) => void
}

/** A HighLevel location's conversations, as a botmesh provider. */
export class GoHighLevelProvider implements IProvider {
  readonly name = 'gohighlevel'
  readonly textLimit = GOHIGHLEVEL_LIMITS.textLimit
  readonly session = 'any' as const
  readonly #options: GoHighLevelProviderOptions
  readonly #target: GoHighLevelTarget
  readonly #publicKey: KeyObject
  readonly #codec
  readonly #downloadPolicy: DownloadPolicy
  readonly #webhook: WebhookServer

  constructor(options: GoHighLevelProviderOptions) {
    requireStrings('gohighlevel', options, ['token', 'locationId'])
    try {
      this.#publicKey = webhookKeyOf(options.webhook?.publicKey)
    } catch (error) {
      throw new ProviderConfigError('gohighlevel', `webhook.publicKey must be HighLevel's PEM public key: ${describeError(error, [])}`)
    }
    this.#options = options
    this.#webhook = new WebhookServer(errorReporter('gohighlevel', options, [options.token]))
    this.#codec = gohighlevelMediaRefCodec(options)
    this.#downloadPolicy = hostedDownloadPolicy('gohighlevel', options, GOHIGHLEVEL_LIMITS.downloadBytesMax)
    const api = new HttpApi({
      channel: 'gohighlevel',
      timeoutMs: options.requestTimeoutMs ?? GOHIGHLEVEL_LIMITS.requestTimeoutMs,
      secrets: [options.token],
      rateLimitRetryAfterMsDefault: GOHIGHLEVEL_LIMITS.rateLimitRetryAfterMsDefault,
      failure: goHighLevelFailure,
    })
    const apiRoot = (options.apiRoot ?? 'https://services.leadconnectorhq.com').replace(/\/+$/, '')
    this.#target = { api, apiRoot, token: options.token, messageType: options.messageType ?? 'SMS' }
  }

  /** The webhook server's origin once started (`http://host:port`). */
  get webhookOrigin(): string | undefined {
    return this.#webhook.origin
  }

  async start(sink: InboundSink): Promise<void> {
    const { webhook, locationId } = this.#options
    const path = webhook.path ?? '/gohighlevel'
    const messageType = this.#target.messageType
    const replays = new ReplayCache(webhook.replayEntriesMax)
    const deps = { path, publicKey: this.#publicKey, locationId, messageType, now: webhook.clock ?? Date.now, replays, sink }
    await this.#webhook.start(webhook, gohighlevelWebhook(deps))
  }

  async stop(): Promise<void> {
    await this.#webhook.stop()
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    return { messageId: await sendGoHighLevel(this.#target, chatId, content) }
  }

  /** An attachment from its hosted URL (no credentials are sent there). */
  async download(media: MediaRef): Promise<Buffer> {
    const policy = { ...this.#downloadPolicy, ...declaredContentTypes(media.mimeType) }
    return this.#target.api.download(hostedUrlOf('gohighlevel', media), { policy })
  }

  serializeMediaRef(media: MediaRef): StoredMediaRef | undefined {
    return this.#codec.serialize(media)
  }

  rehydrateMediaRef(stored: StoredMediaRef, media: MediaRef): MediaRef {
    return this.#codec.rehydrate(stored, media)
  }
}
