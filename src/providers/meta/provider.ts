/**
 * `MetaCloudProvider`: a real WhatsApp Cloud API transport. A webhook server (verification,
 * signed POSTs answered 200 only after the journal), Graph API sends, media downloads by id, and
 * Cloud API failures as the outbox's error classes. The access token, app secret and verify token
 * are never logged, journaled or put in an error.
 */
import { ERROR_CODES } from '../../core/errors/errors.js'
import type { InboundSink, MediaRef, OutboundContent, ProviderSendOptions, ProviderSendResult } from '../../core/provider/provider.js'
import { MediaDownloadError, ProviderConfigError } from '../shared/errors.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { GraphClient } from '../shared/graph.js'
import { requireStrings } from '../shared/required-options.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import type { ChannelProviderOptions } from '../shared/channel-provider.js'
import { WebhookProvider } from '../shared/webhook-provider.js'
import { metaError, MetaApiError } from './errors.js'
import { GRAPH_API_VERSION_DEFAULT, META_LIMITS } from './limits.js'
import { metaMediaRefCodec, type MetaMediaToken } from './media-ref.js'
import { sendMessage } from './send.js'
import { metaWebhook } from './webhook.js'
import { withoutTrailingSlashes } from '../shared/url.js'

/** Options of `MetaCloudProvider`. */
export interface MetaCloudProviderOptions extends ChannelProviderOptions {
  /** A system-user access token with `whatsapp_business_messaging`. Never logged nor journaled. */
  accessToken: string
  /** The phone number id messages are sent from (and whose webhooks this provider handles). */
  phoneNumberId: string
  /** The app secret that signs webhooks (`X-Hub-Signature-256`). */
  appSecret: string
  /** The verify token you set in the app's webhook configuration. */
  verifyToken: string
  /** The webhook server. */
  webhook: WebhookEndpoint & {
    /** The path it answers on. @default '/webhook' */
    path?: string
  }
  /** The Graph API root (a test double, a proxy). @default 'https://graph.facebook.com' */
  graphApiRoot?: string
  /** @default GRAPH_API_VERSION_DEFAULT ('v21.0') */
  graphApiVersion?: string
  /**
   * What a send that timed out is. The Graph API has no idempotency key, so Meta may have accepted
   * it: `'retry'` sends it again (never lost, possibly a duplicate), `'final'` dead-letters it with
   * code `META_SEND_AMBIGUOUS` (never a duplicate; `retrySend` it after checking). Pair `'final'`
   * with `outbox.onAmbiguous: 'skip'`. @default 'retry'
   */
  sendTimeouts?: 'retry' | 'final'
}

/** A WhatsApp Cloud API number, as a botmesh provider. */
export class MetaCloudProvider extends WebhookProvider<MetaCloudProviderOptions> {
  readonly name = 'meta'
  readonly textLimit = META_LIMITS.textLimit
  /** Each send carries its outbox key in `biz_opaque_callback_data`, echoed by the status webhooks. */
  readonly echoesOutboxKey = true
  readonly #graph: GraphClient

  constructor(options: MetaCloudProviderOptions) {
    requireStrings('meta', options, ['accessToken', 'phoneNumberId', 'appSecret', 'verifyToken'])
    if (!/^\d+$/.test(options.phoneNumberId))
      throw new ProviderConfigError('meta', 'phoneNumberId is the numeric id of the phone number, not the number itself')
    super({ channel: 'meta', options, secrets: [options.accessToken, options.appSecret, options.verifyToken], codec: metaMediaRefCodec() })
    this.#graph = new GraphClient({
      channel: 'meta',
      apiRoot: withoutTrailingSlashes(options.graphApiRoot ?? 'https://graph.facebook.com'),
      version: options.graphApiVersion ?? GRAPH_API_VERSION_DEFAULT,
      accessToken: options.accessToken,
      timeoutMs: options.requestTimeoutMs ?? META_LIMITS.requestTimeoutMs,
      errorOf: (status, body, retryAfter) => metaError(status, body, retryAfter, [options.accessToken]),
      noAnswerError: (error) =>
        new MetaApiError(error.code === ERROR_CODES.CHANNEL_TIMEOUT ? ERROR_CODES.META_TIMEOUT : ERROR_CODES.META_NETWORK, error.message, {
          retryable: true,
        }),
    })
  }

  protected route(sink: InboundSink): WebhookRoute {
    const { webhook, verifyToken, appSecret, phoneNumberId } = this.options
    return metaWebhook({ path: webhook.path ?? '/webhook', verifyToken, appSecret, phoneNumberId, sink, delivered: sink.delivered })
  }

  async send(chatId: string, content: OutboundContent, options: ProviderSendOptions = {}): Promise<ProviderSendResult> {
    try {
      return { messageId: await sendMessage(this.#graph, this.options.phoneNumberId, chatId, content, options.outboxKey) }
    } catch (error) {
      if (this.options.sendTimeouts === 'final' && error instanceof MetaApiError && error.code === ERROR_CODES.META_TIMEOUT) {
        throw new MetaApiError(
          ERROR_CODES.META_SEND_AMBIGUOUS,
          `${error.message}; Meta may have accepted it, so it is not sent again (sendTimeouts: 'final')`,
          { retryable: false, cause: error },
        )
      }
      throw error
    }
  }

  /** Marks a received message as read (never journaled). */
  async markRead(messageId: string): Promise<void> {
    await this.#graph.call('POST', `${this.options.phoneNumberId}/messages`, {
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: messageId,
    })
  }

  /** Downloads media by its id (a live webhook's media object or a rebuilt reference): the media URL, then its bytes. */
  async download(media: MediaRef): Promise<Buffer> {
    const id = typeof media.token === 'string' ? media.token : (media.token as Partial<MetaMediaToken> | undefined)?.id
    if (typeof id !== 'string' || !/^\d+$/.test(id)) throw new MediaDownloadError('meta', 'the media has no media id')
    const described = await this.#graph.call<{ url?: string; file_size?: number }>('GET', id)
    if (!described?.url) throw new MediaDownloadError('meta', `the Graph API gave no URL for media ${id}`)
    if ((described.file_size ?? 0) > META_LIMITS.downloadBytesMax)
      throw new MediaDownloadError('meta', `media ${id} is ${described.file_size} bytes, over the limit of ${META_LIMITS.downloadBytesMax}`)
    return this.#graph.download(described.url, META_LIMITS.downloadBytesMax)
  }
}
