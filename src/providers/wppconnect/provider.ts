/**
 * `WppconnectProvider`: a WhatsApp number served by a WPPConnect Server. A webhook server (a
 * secret in the webhook URL, answered 200 only after the journal), sends through the session's
 * REST API with its bearer token, media downloads by message id, and the server's failures as the
 * outbox's error classes. The token and the webhook secret are never logged, journaled or put in
 * an error.
 */
import type { InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { base64Media } from '../shared/base64-media.js'
import { MediaDownloadError } from '../shared/errors.js'
import { checkWebhookSecret } from '../shared/secret.js'
import { channelHttpApi } from '../shared/http-api.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { requireHttpUrl, requireStrings } from '../shared/required-options.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import type { ChannelProviderOptions } from '../shared/channel-provider.js'
import { WebhookProvider } from '../shared/webhook-provider.js'
import { wppconnectFailure } from './errors.js'
import { WPPCONNECT_LIMITS } from './limits.js'
import { wppconnectMediaRefCodec, type WppconnectMediaToken } from './media-ref.js'
import { sendWppconnect, type WppconnectTarget } from './send.js'
import { wppconnectWebhook } from './webhook.js'

/** Options of `WppconnectProvider`. */
export interface WppconnectProviderOptions extends ChannelProviderOptions {
  /** The WPPConnect Server (`https://wpp.example.com`). */
  serverUrl: string
  /** The session name. */
  session: string
  /** The session's bearer token (from `generate-token`). Never logged nor journaled. */
  token: string
  /** The webhook server; give `start-session` the URL `https://<host><path>?token=<secret>`. */
  webhook: WebhookEndpoint & {
    /** The path it answers on. @default '/wppconnect' */
    path?: string
    /** The secret in the webhook URL's `token` parameter (16-256 of A-Z, a-z, 0-9, _ and -): a call without it gets 401. Never logged. */
    secret: string
  }
}

/** A WhatsApp number on a WPPConnect Server, as a botmesh provider. */
export class WppconnectProvider extends WebhookProvider<WppconnectProviderOptions> {
  readonly name = 'wppconnect'
  readonly textLimit = WPPCONNECT_LIMITS.textLimit
  readonly #target: WppconnectTarget

  constructor(options: WppconnectProviderOptions) {
    requireStrings('wppconnect', options, ['serverUrl', 'session', 'token'])
    checkWebhookSecret('wppconnect', 'webhook.secret', options.webhook?.secret)
    const serverUrl = requireHttpUrl('wppconnect', options, 'serverUrl')
    const secrets = [options.token, options.webhook.secret]
    super({ channel: 'wppconnect', options, secrets, codec: wppconnectMediaRefCodec() })
    const api = channelHttpApi('wppconnect', WPPCONNECT_LIMITS, options, { secrets, failure: wppconnectFailure })
    this.#target = { api, serverUrl, session: options.session, token: options.token }
  }

  protected route(sink: InboundSink): WebhookRoute {
    const { webhook, session } = this.options
    return wppconnectWebhook({ path: webhook.path ?? '/wppconnect', secret: webhook.secret, session, sink })
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    return { messageId: await sendWppconnect(this.#target, chatId, content) }
  }

  /** The media of a message by its id (`get-media-by-message`). */
  async download(media: MediaRef): Promise<Buffer> {
    const id = (media.token as Partial<WppconnectMediaToken> | undefined)?.id
    if (typeof id !== 'string') throw new MediaDownloadError('wppconnect', 'the media has no message id')
    const { api, serverUrl, session, token } = this.#target
    const url = `${serverUrl}/api/${encodeURIComponent(session)}/get-media-by-message/${encodeURIComponent(id)}`
    const answer = await api.request<{ base64?: string }>('GET', url, { headers: { authorization: `Bearer ${token}` } })
    return base64Media('wppconnect', answer?.base64, WPPCONNECT_LIMITS.downloadBytesMax, 'the server answered no media')
  }
}
