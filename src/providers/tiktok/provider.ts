/**
 * `TikTokProvider`: a TikTok Business Account's direct messages over the Business Messaging API
 * (plain HTTPS, no driver). A signed webhook answered only after the journal, text and image sends
 * to a conversation, media downloads through the API's download URL, and API failures as the
 * outbox's error classes. The access token and client secret are never logged, journaled or put in
 * an error.
 */
import type { InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { MediaDownloadError } from '../shared/errors.js'
import { configuredOrigins, type DownloadPolicy, type MediaTestOriginsOption } from '../shared/download.js'
import { downloadMedia, type HttpCaller } from '../shared/http.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { requireStrings } from '../shared/required-options.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import type { ChannelProviderOptions } from '../shared/channel-provider.js'
import { WebhookProvider } from '../shared/webhook-provider.js'
import { TikTokApi } from './api.js'
import { TIKTOK_API_DEFAULT, TIKTOK_LIMITS } from './limits.js'
import { TIKTOK_MEDIA_HOSTS, tiktokMediaRefCodec, type TikTokMediaToken } from './media-ref.js'
import { sendTikTok } from './send.js'
import { tiktokWebhook } from './webhook.js'
import { withoutTrailingSlashes } from '../shared/url.js'

/** Options of `TikTokProvider`. */
export interface TikTokProviderOptions extends MediaTestOriginsOption, ChannelProviderOptions {
  /** The Business Account's access token. Never logged nor journaled. */
  accessToken: string
  /** The Business Account id (`business_id`, the webhook's `user_openid`). */
  businessId: string
  /** The app's client secret, which signs webhooks (`TikTok-Signature`). */
  clientSecret: string
  /** The webhook server. */
  webhook: WebhookEndpoint & {
    /** The path it answers on. @default '/tiktok' */
    path?: string
  }
  /** The Business API root (a proxy, a test double). @default 'https://business-api.tiktok.com' */
  apiRoot?: string
  /** The hosts (and their subdomains) a journaled sticker URL may be on. @default TIKTOK_MEDIA_HOSTS */
  mediaRefHosts?: readonly string[]
}

/** A TikTok Business Account's direct messages, as a botmesh provider. */
export class TikTokProvider extends WebhookProvider<TikTokProviderOptions> {
  readonly name = 'tiktok'
  readonly textLimit = TIKTOK_LIMITS.textLimit
  readonly #api: TikTokApi
  readonly #caller: HttpCaller
  readonly #downloadPolicy: DownloadPolicy

  constructor(options: TikTokProviderOptions) {
    requireStrings('tiktok', options, ['accessToken', 'businessId', 'clientSecret'])
    const codec = tiktokMediaRefCodec(options.mediaRefHosts ? { mediaRefHosts: options.mediaRefHosts } : {})
    super({ channel: 'tiktok', options, secrets: [options.accessToken, options.clientSecret], codec })
    const timeoutMs = options.requestTimeoutMs ?? TIKTOK_LIMITS.requestTimeoutMs
    this.#api = new TikTokApi({
      apiRoot: withoutTrailingSlashes(options.apiRoot ?? TIKTOK_API_DEFAULT),
      accessToken: options.accessToken,
      timeoutMs,
    })
    this.#caller = { channel: 'tiktok', timeoutMs, secrets: [options.accessToken, options.clientSecret] }
    // The API's download URLs and stickers come from TikTok's CDNs; a configured API root (a test double) is trusted as given.
    this.#downloadPolicy = {
      hosts: [...(options.mediaRefHosts ?? TIKTOK_MEDIA_HOSTS), 'tiktok.com'],
      trustedOrigins: configuredOrigins('tiktok', options.mediaTestOrigins, options.apiRoot),
      bytesMax: TIKTOK_LIMITS.downloadBytesMax,
    }
  }

  protected route(sink: InboundSink): WebhookRoute {
    const { webhook, clientSecret, businessId } = this.options
    const path = webhook.path ?? '/tiktok'
    return tiktokWebhook({ path, clientSecret, businessId, toleranceMs: TIKTOK_LIMITS.signatureToleranceMs, now: Date.now, sink })
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    // A media URL of the bot's own is fetched under the same policy, from any public host.
    const { trustedOrigins, bytesMax } = this.#downloadPolicy
    const fetchUrl = (url: string) =>
      downloadMedia(this.#caller, url, { policy: { ...(trustedOrigins ? { trustedOrigins } : {}), bytesMax } })
    return { messageId: await sendTikTok(this.#api, fetchUrl, this.options.businessId, chatId, content) }
  }

  /** Downloads media: the API's download URL for its coordinates (or a sticker's URL), then its bytes. */
  async download(media: MediaRef): Promise<Buffer> {
    const token = media.token as Partial<{ conversationId: string; messageId: string; mediaId: string; stickerUrl: string }> | undefined
    let url = token?.stickerUrl
    if (!url) {
      const { conversationId, messageId, mediaId } = (token ?? {}) as Partial<Extract<TikTokMediaToken, { mediaId: string }>>
      if (!conversationId || !messageId || !mediaId) throw new MediaDownloadError('tiktok', 'the media has no coordinates')
      const data = await this.#api.post<{ download_url?: string }>('business/message/media/download/', {
        business_id: this.options.businessId,
        conversation_id: conversationId,
        message_id: messageId,
        media_id: mediaId,
        media_type: media.type === 'image' ? 'IMAGE' : media.type.toUpperCase(),
      })
      url = data?.download_url
      if (!url) throw new MediaDownloadError('tiktok', `the Business API gave no download URL for media ${mediaId}`)
    }
    return downloadMedia(this.#caller, url, { policy: this.#downloadPolicy })
  }
}
