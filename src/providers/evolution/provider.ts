/**
 * `EvolutionProvider`: a WhatsApp number served by an Evolution API server. A webhook server
 * (the token Evolution signs with the webhook's `jwt_key`, answered 200 only after the journal),
 * sends through the instance's REST API, media downloads by message key (or from the webhook's
 * inline base64), and Evolution's failures as the outbox's error classes. The API key and the
 * webhook key are never logged, journaled or put in an error.
 */
import type { InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { base64Media } from '../shared/base64-media.js'
import { MediaDownloadError } from '../shared/errors.js'
import { ReplayCache } from '../shared/replay.js'
import { checkWebhookSecret } from '../shared/secret.js'
import { channelHttpApi } from '../shared/http-api.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { requireHttpUrl, requireStrings } from '../shared/required-options.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import type { ChannelProviderOptions } from '../shared/channel-provider.js'
import { WebhookProvider } from '../shared/webhook-provider.js'
import { evolutionFailure } from './errors.js'
import { EVOLUTION_LIMITS } from './limits.js'
import { evolutionMediaRefCodec } from './media-ref.js'
import type { EvolutionLiveMediaToken } from './messages.js'
import { sendEvolution, type EvolutionTarget } from './send.js'
import { evolutionWebhook } from './webhook.js'

/** Options of `EvolutionProvider`. */
export interface EvolutionProviderOptions extends ChannelProviderOptions {
  /** The Evolution API server (`https://evolution.example.com`). */
  apiUrl: string
  /** The instance name (the WhatsApp number's session on that server). */
  instance: string
  /** The instance's API key (sent as the `apikey` header). Never logged nor journaled. */
  apiKey: string
  /** The webhook server; set the same `jwtKey` as `headers.jwt_key` of the instance's webhook. */
  webhook: WebhookEndpoint & {
    /** The path it answers on. @default '/evolution' */
    path?: string
    /** The webhook's `jwt_key`: Evolution signs each call's token with it. Never logged. */
    jwtKey: string
    /** The clock a token's `iat` and `exp` are checked against (ms since the epoch; tests set it). @default Date.now */
    clock?: () => number
    /** The most tokens remembered to refuse a replay. @default REPLAY_LIMITS.entriesMax (10 000) */
    replayEntriesMax?: number
  }
}

/** A WhatsApp number on an Evolution API server, as a botmesh provider. */
export class EvolutionProvider extends WebhookProvider<EvolutionProviderOptions> {
  readonly name = 'evolution'
  readonly textLimit = EVOLUTION_LIMITS.textLimit
  readonly #target: EvolutionTarget

  constructor(options: EvolutionProviderOptions) {
    requireStrings('evolution', options, ['apiUrl', 'instance', 'apiKey'])
    checkWebhookSecret('evolution', 'webhook.jwtKey', options.webhook?.jwtKey, { lengthMax: 1024, anyCharacters: true })
    const apiUrl = requireHttpUrl('evolution', options, 'apiUrl')
    const secrets = [options.apiKey, options.webhook.jwtKey]
    super({ channel: 'evolution', options, secrets, codec: evolutionMediaRefCodec() })
    const api = channelHttpApi('evolution', EVOLUTION_LIMITS, options, { secrets, failure: evolutionFailure })
    this.#target = { api, apiUrl, instance: options.instance, apiKey: options.apiKey }
  }

  protected route(sink: InboundSink): WebhookRoute {
    const { webhook, instance } = this.options
    const replays = new ReplayCache(webhook.replayEntriesMax)
    const path = webhook.path ?? '/evolution'
    return evolutionWebhook({ path, jwtKey: webhook.jwtKey, instance, now: webhook.clock ?? Date.now, replays, sink })
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    return { messageId: await sendEvolution(this.#target, chatId, content) }
  }

  /** The webhook's inline base64 when it carried one; otherwise Evolution's `getBase64FromMediaMessage` by message key. */
  async download(media: MediaRef): Promise<Buffer> {
    const token = media.token as Partial<EvolutionLiveMediaToken> | undefined
    if (typeof token?.key?.id !== 'string') throw new MediaDownloadError('evolution', 'the media has no message key')
    let base64 = token.base64
    if (base64 === undefined) {
      const { api, apiUrl, instance, apiKey } = this.#target
      const answer = await api.request<{ base64?: string }>(
        'POST',
        `${apiUrl}/chat/getBase64FromMediaMessage/${encodeURIComponent(instance)}`,
        {
          headers: { apikey: apiKey },
          json: { message: { key: token.key }, convertToMp4: false },
        },
      )
      base64 = answer?.base64
    }
    return base64Media('evolution', base64, EVOLUTION_LIMITS.downloadBytesMax, 'Evolution answered no media')
  }
}
