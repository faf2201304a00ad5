/**
 * `GupshupProvider`: a WhatsApp number on Gupshup. A callback server (a secret in the callback
 * URL, answered 200 only after the journal), sends through Gupshup's send message API with the API
 * key, media downloads from the hosted URLs Gupshup gives, and Gupshup's failures as the outbox's
 * error classes. The API key and the callback secret are never logged, journaled or put in an
 * error.
 */
import type { InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { checkWebhookSecret } from '../shared/secret.js'
import type { DownloadPolicy } from '../shared/download.js'
import { downloadHosted, hostedDownloadPolicy } from '../shared/hosted-url.js'
import { channelHttpApi } from '../shared/http-api.js'
import { withoutTrailingSlashes } from '../shared/url.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { requireStrings } from '../shared/required-options.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import type { ChannelProviderOptions } from '../shared/channel-provider.js'
import { WebhookProvider } from '../shared/webhook-provider.js'
import { gupshupFailure } from './errors.js'
import { GUPSHUP_LIMITS } from './limits.js'
import { gupshupMediaRefCodec, type GupshupMediaRefOptions } from './media-ref.js'
import { sendGupshup, type GupshupTarget } from './send.js'
import { gupshupWebhook } from './webhook.js'

/** Options of `GupshupProvider`. */
export interface GupshupProviderOptions extends GupshupMediaRefOptions, ChannelProviderOptions {
  /** The account's API key (sent as the `apikey` header). Never logged nor journaled. */
  apiKey: string
  /** The app's name (`src.name`). */
  app: string
  /** The app's WhatsApp number, digits with the country code (`917834811114`). */
  source: string
  /** The callback server; set the app's callback URL to `https://<host><path>?token=<secret>`. */
  webhook: WebhookEndpoint & {
    /** The path it answers on. @default '/gupshup' */
    path?: string
    /** The secret in the callback URL's `token` parameter: a call without it gets 401 before its body is read. Never logged. */
    secret: string
  }
  /** The API root (a test double, a proxy). @default 'https://api.gupshup.io' */
  apiRoot?: string
}

/** A WhatsApp number on Gupshup, as a botmesh provider. */
export class GupshupProvider extends WebhookProvider<GupshupProviderOptions> {
  readonly name = 'gupshup'
  readonly textLimit = GUPSHUP_LIMITS.textLimit
  readonly #target: GupshupTarget
  readonly #downloadPolicy: DownloadPolicy

  constructor(options: GupshupProviderOptions) {
    requireStrings('gupshup', options, ['apiKey', 'app', 'source'])
    checkWebhookSecret('gupshup', 'webhook.secret', options.webhook?.secret)
    const secrets = [options.apiKey, options.webhook.secret]
    super({ channel: 'gupshup', options, secrets, codec: gupshupMediaRefCodec(options) })
    this.#downloadPolicy = hostedDownloadPolicy('gupshup', options, GUPSHUP_LIMITS.downloadBytesMax)
    const api = channelHttpApi('gupshup', GUPSHUP_LIMITS, options, { secrets, failure: gupshupFailure })
    const apiRoot = withoutTrailingSlashes(options.apiRoot ?? 'https://api.gupshup.io')
    this.#target = { api, apiRoot, apiKey: options.apiKey, source: options.source, app: options.app }
  }

  protected route(sink: InboundSink): WebhookRoute {
    const { webhook, app } = this.options
    return gupshupWebhook({ path: webhook.path ?? '/gupshup', secret: webhook.secret, app, sink })
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    return { messageId: await sendGupshup(this.#target, chatId, content) }
  }

  /** The media's hosted URL, under the download policy (no credentials are sent there). */
  async download(media: MediaRef): Promise<Buffer> {
    return downloadHosted(this.#target.api, media, this.#downloadPolicy)
  }
}
