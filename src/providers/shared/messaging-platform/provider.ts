/**
 * The transport of the channels on the Messenger Platform (Messenger, Instagram): a webhook server
 * (subscription check, signed POSTs answered 200 only after the journal), Send API calls through
 * the shared Graph API client, attachment downloads from Meta's CDNs, and Send API failures as the
 * outbox's error classes. Each channel's provider gives its name, limits, webhook object and codec.
 * The access token, app secret and verify token are never logged, journaled or put in an error.
 */
import type { InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../../core/provider/provider.js'
import { messagingMediaRefCodec, type MessagingMediaRefOptions } from './media-ref.js'
import { MediaDownloadError, ProviderConfigError } from '../errors.js'
import { GraphClient } from '../graph.js'
import { configuredOrigins, declaredContentTypes, type MediaTestOriginsOption } from '../download.js'
import { downloadMedia } from '../http.js'
import type { WebhookEndpoint } from '../http-server.js'
import { requireStrings } from '../required-options.js'
import type { WebhookRoute } from '../webhook-server.js'
import type { ChannelProviderOptions } from '../channel-provider.js'
import { WebhookProvider } from '../webhook-provider.js'
import { messagingError } from './errors.js'
import { sendMessaging, type MessagingSendLimits } from './send.js'
import { messagingWebhook } from './webhook.js'
import { withoutTrailingSlashes } from '../url.js'

/** Options every Messenger Platform channel takes. */
export interface MessagingProviderOptions extends MediaTestOriginsOption, MessagingMediaRefOptions, ChannelProviderOptions {
  /** The access token (a Page access token, or an Instagram user access token). Never logged nor journaled. */
  accessToken: string
  /** The app secret that signs webhooks (`X-Hub-Signature-256`). */
  appSecret: string
  /** The verify token you set in the app's webhook configuration. */
  verifyToken: string
  /** The webhook server. */
  webhook: WebhookEndpoint & {
    /** The path it answers on. @default '/webhook' */
    path?: string
  }
  /** The Graph API version. @default 'v21.0' */
  graphApiVersion?: string
}

/** What a channel tells the shared transport. */
export interface MessagingChannel extends MessagingSendLimits {
  /** The webhook `object`: 'page' or 'instagram'. */
  object: string
  /** The page or Instagram account id (messages are sent from it, and webhooks addressed to it). */
  accountId: string
  apiRoot: string
  /** The hosts (and their subdomains) attachments come from, unless the options' `mediaRefHosts` names others. */
  mediaHosts: readonly string[]
  downloadBytesMax: number
  requestTimeoutMs: number
  rateLimitRetryAfterMsDefault: number
}

/** The shared transport; `MessengerProvider` and `InstagramProvider` are it with their channel. */
export abstract class MessagingPlatformProvider extends WebhookProvider<MessagingProviderOptions> {
  readonly textLimit: number
  readonly #channel: MessagingChannel
  readonly #graph: GraphClient

  protected constructor(options: MessagingProviderOptions, channel: MessagingChannel) {
    const codec = messagingMediaRefCodec(channel.channel, options, channel.mediaHosts)
    requireStrings(channel.channel, options, ['accessToken', 'appSecret', 'verifyToken'])
    if (!/^\d+$/.test(channel.accountId))
      throw new ProviderConfigError(channel.channel, 'the account id is the numeric id of the page or account')
    super({
      channel: channel.channel,
      options,
      secrets: [options.accessToken, options.appSecret, options.verifyToken],
      codec,
    })
    this.textLimit = channel.textLimit
    this.#channel = channel
    const secrets = [options.accessToken]
    this.#graph = new GraphClient({
      channel: channel.channel,
      apiRoot: withoutTrailingSlashes(channel.apiRoot),
      version: options.graphApiVersion ?? 'v21.0',
      accessToken: options.accessToken,
      timeoutMs: options.requestTimeoutMs ?? channel.requestTimeoutMs,
      errorOf: (status, body, retryAfter) =>
        messagingError(channel.channel, status, body, retryAfter, {
          secrets,
          rateLimitRetryAfterMsDefault: channel.rateLimitRetryAfterMsDefault,
        }),
    })
  }

  protected route(sink: InboundSink): WebhookRoute {
    const { webhook, verifyToken, appSecret } = this.options
    const { object, accountId } = this.#channel
    return messagingWebhook({ path: webhook.path ?? '/webhook', verifyToken, appSecret, object, accountId, sink })
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    return { messageId: await sendMessaging(this.#graph, `${this.#channel.accountId}/messages`, chatId, content, this.#channel) }
  }

  /** Downloads an attachment from its CDN URL (signed by Meta: no token is sent), under the download policy. */
  async download(media: MediaRef): Promise<Buffer> {
    const url = (media.token as { url?: unknown } | undefined)?.url
    if (typeof url !== 'string') throw new MediaDownloadError(this.#channel.channel, 'the media has no URL')
    const caller = {
      channel: this.#channel.channel,
      timeoutMs: this.options.requestTimeoutMs ?? this.#channel.requestTimeoutMs,
      secrets: [],
    }
    return downloadMedia(caller, url, {
      policy: {
        hosts: this.options.mediaRefHosts ?? this.#channel.mediaHosts,
        trustedOrigins: configuredOrigins(this.#channel.channel, this.options.mediaTestOrigins),
        bytesMax: this.#channel.downloadBytesMax,
        ...declaredContentTypes(media.mimeType),
      },
    })
  }
}
