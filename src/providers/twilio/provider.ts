/**
 * `TwilioProvider`: SMS and WhatsApp through Twilio Programmable Messaging, on the `twilio`
 * package. A webhook server for incoming messages (signature-checked, answered only after the
 * journal), sends through the REST API, media downloads with the account's credentials, and
 * Twilio's failures as the outbox's error classes. The auth token is never logged, journaled or put
 * in an error.
 */
import type { InboundSink, MediaRef, OutboundContent, ProviderSendOptions, ProviderSendResult } from '../../core/provider/provider.js'
import { channelCall } from '../shared/channel-call.js'
import { MediaDownloadError, ProviderConfigError } from '../shared/errors.js'
import { configuredOrigins, declaredContentTypes, type MediaTestOriginsOption } from '../shared/download.js'
import { downloadMedia } from '../shared/http.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { loadedOnce } from '../shared/once.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import type { ChannelProviderOptions } from '../shared/channel-provider.js'
import { WebhookProvider } from '../shared/webhook-provider.js'
import { hostMatches, withoutTrailingSlashes } from '../shared/url.js'
import { loadTwilio, type TwilioClient } from './client.js'
import { twilioError } from './errors.js'
import { TWILIO_API_ORIGIN_DEFAULT, TWILIO_LIMITS } from './limits.js'
import { twilioMediaRefCodec, type TwilioMediaToken } from './media-ref.js'
import { messageParams, type TwilioSender } from './send.js'
import { statusCallbackUrl, twilioWebhook } from './webhook.js'

/**
 * The hosts a media download may reach: Twilio answers a media URL with a redirect to its CDN
 * (`twiliocdn.com`) or to S3 (`s3-external-1.amazonaws.com`); the credentials are not sent there.
 */
export const TWILIO_DOWNLOAD_HOSTS: readonly string[] = ['twilio.com', 'twiliocdn.com', 'amazonaws.com']

/** Options of `TwilioProvider`. */
export interface TwilioProviderOptions extends MediaTestOriginsOption, ChannelProviderOptions {
  /** The account SID (`AC…`). */
  accountSid: string
  /** The auth token: signs webhooks and authorizes REST calls. Never logged nor journaled. */
  authToken: string
  /** The sender: your Twilio number (`+14155550100`); a WhatsApp chat is answered from `whatsapp:` + it. */
  from?: string
  /** Or a Messaging Service that picks the sender (`MG…`). */
  messagingServiceSid?: string
  /** The webhook server for incoming messages. */
  webhook: WebhookEndpoint & {
    /** The path it answers on. @default '/twilio' */
    path?: string
    /** The public URL you configure in Twilio for this path (`https://bot.example.com/twilio`): Twilio signs it. */
    publicUrl: string
  }
  /** The REST API origin (a regional edge, a proxy, a test double). @default 'https://api.twilio.com' */
  apiOrigin?: string
}

/** A Twilio number (SMS, MMS, WhatsApp), as a botmesh provider. */
export class TwilioProvider extends WebhookProvider<TwilioProviderOptions> {
  readonly name = 'twilio'
  readonly textLimit = TWILIO_LIMITS.textLimit
  /** Each send's StatusCallback URL carries its outbox key, and `<path>/status` takes the callbacks. */
  readonly echoesOutboxKey = true
  readonly #apiOrigin: string
  readonly #sender: TwilioSender
  readonly #client: () => Promise<TwilioClient>

  constructor(options: TwilioProviderOptions) {
    if (!/^AC[0-9a-fA-F]{32}$/.test(options.accountSid ?? ''))
      throw new ProviderConfigError('twilio', 'accountSid must be an account SID (AC followed by 32 hex digits)')
    if (!options.authToken) throw new ProviderConfigError('twilio', 'authToken is required')
    if (!options.from === !options.messagingServiceSid)
      throw new ProviderConfigError('twilio', 'give either from (a Twilio number) or messagingServiceSid')
    if (!/^https?:\/\/[^/]+/.test(options.webhook?.publicUrl ?? ''))
      throw new ProviderConfigError('twilio', 'webhook.publicUrl must be the http(s) URL configured in Twilio')
    const apiOrigin = new URL(options.apiOrigin ?? TWILIO_API_ORIGIN_DEFAULT).origin
    super({ channel: 'twilio', options, secrets: [options.authToken], codec: twilioMediaRefCodec({ apiOrigin }) })
    this.#apiOrigin = apiOrigin
    this.#sender = options.from ? { from: options.from } : { messagingServiceSid: options.messagingServiceSid! }
    this.#client = loadedOnce(() =>
      loadTwilio({
        accountSid: options.accountSid,
        authToken: options.authToken,
        apiOrigin: this.#apiOrigin,
        timeoutMs: options.requestTimeoutMs ?? TWILIO_LIMITS.requestTimeoutMs,
      }),
    )
  }

  protected async route(sink: InboundSink): Promise<WebhookRoute> {
    const { validSignature } = await this.#client()
    const { webhook, accountSid } = this.options
    const path = webhook.path ?? '/twilio'
    return twilioWebhook({ path, publicUrl: this.#publicUrl(), accountSid, validSignature, sink, delivered: sink.delivered })
  }

  async send(chatId: string, content: OutboundContent, options: ProviderSendOptions = {}): Promise<ProviderSendResult> {
    const params = messageParams(this.#sender, chatId, content)
    if (options.outboxKey) params.statusCallback = statusCallbackUrl(this.#publicUrl(), options.outboxKey)
    const client = await this.#client()
    const message = await channelCall(
      () => client.createMessage(params),
      (error) => twilioError(error, this.options.authToken),
    )
    return { messageId: message.sid }
  }

  /** Downloads a message's media under the download policy; the credentials go only to the API origin or a `twilio.com` host. */
  async download(media: MediaRef): Promise<Buffer> {
    const url = (media.token as Partial<TwilioMediaToken> | undefined)?.url
    if (typeof url !== 'string') throw new MediaDownloadError('twilio', 'the media has no URL')
    const target = new URL(url)
    const ours = target.origin === this.#apiOrigin || (target.protocol === 'https:' && hostMatches(target.hostname, 'twilio.com'))
    if (!ours)
      throw new MediaDownloadError('twilio', `the media URL is not on Twilio (${target.hostname}); the credentials are not sent there`)
    const { accountSid, authToken } = this.options
    return downloadMedia(
      { channel: 'twilio', timeoutMs: this.options.requestTimeoutMs ?? TWILIO_LIMITS.requestTimeoutMs, secrets: [authToken] },
      url,
      {
        headers: { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}` },
        policy: {
          hosts: TWILIO_DOWNLOAD_HOSTS,
          trustedOrigins: configuredOrigins('twilio', this.options.mediaTestOrigins, this.options.apiOrigin),
          bytesMax: TWILIO_LIMITS.downloadBytesMax,
          ...declaredContentTypes(media.mimeType),
        },
      },
    )
  }

  #publicUrl(): string {
    return withoutTrailingSlashes(this.options.webhook.publicUrl)
  }
}
