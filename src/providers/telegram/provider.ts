/**
 * `TelegramProvider`: a real Telegram transport on grammY's Bot API client. Long polling by
 * default, or a webhook server with `webhook`; text, photo, document (and video, audio, sticker)
 * sends; media downloads through `getFile`; Bot API failures as the outbox's error classes. The
 * bot token is never logged, journaled or put in an error.
 */
import type { IProvider, InboundEvent, InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { ChannelProvider, type ChannelProviderOptions } from '../shared/channel-provider.js'
import { channelCall } from '../shared/channel-call.js'
import { MediaDownloadError, ProviderConfigError } from '../shared/errors.js'
import { checkWebhookSecret } from '../shared/secret.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { loadedOnce } from '../shared/once.js'
import { redact } from '../shared/redact.js'
import { WebhookServer } from '../shared/webhook-server.js'
import { apiSignal, loadGrammy, type Grammy } from './client.js'
import { downloadFile } from './download.js'
import { telegramError } from './errors.js'
import { TELEGRAM_LIMITS } from './limits.js'
import { telegramMediaRefCodec, type TelegramMediaToken } from './media-ref.js'
import { TelegramPoller } from './polling.js'
import { sendContent } from './send.js'
import type { TelegramUpdate } from './updates.js'
import { telegramWebhook } from './webhook.js'
import { withoutTrailingSlashes } from '../shared/url.js'

/** Options of `TelegramProvider`. Receive failures (a failed poll, a webhook that answered 500) go to `onError`. */
export interface TelegramProviderOptions extends ChannelProviderOptions {
  /** The bot token from @BotFather. Never logged nor journaled. */
  token: string
  /** The Bot API root (a local Bot API server, or a test double). @default 'https://api.telegram.org' */
  apiRoot?: string
  /** Receive by webhook instead of long polling. */
  webhook?: TelegramWebhookOptions
  /** Seconds one `getUpdates` waits for updates. @default TELEGRAM_LIMITS.pollTimeoutSeconds (25) */
  pollTimeoutSeconds?: number
}

/** Options of webhook mode. */
export interface TelegramWebhookOptions extends WebhookEndpoint {
  /** The path updates are POSTed to. @default '/telegram' */
  path?: string
  /** The secret Telegram sends in `X-Telegram-Bot-Api-Secret-Token` (16-256 of A-Z a-z 0-9 _ -; shorter is `WeakWebhookSecretError`). */
  secretToken: string
  /** The public HTTPS URL to register with `setWebhook` on start; without it, register it yourself. */
  url?: string
}

/** A Telegram bot, as a botmesh provider. */
export class TelegramProvider extends ChannelProvider<TelegramProviderOptions> implements IProvider {
  readonly name = 'telegram'
  readonly textLimit = TELEGRAM_LIMITS.textLimit
  readonly session = 'any' as const
  readonly #apiRoot: string
  readonly #client: () => Promise<Grammy>
  readonly #webhook = new WebhookServer((error) => this.#reportError(error))
  #poller: TelegramPoller | undefined

  constructor(options: TelegramProviderOptions) {
    if (!/^\d+:[\w-]+$/.test(options.token ?? ''))
      throw new ProviderConfigError('telegram', 'token must be a bot token from @BotFather (<digits>:<characters>)')
    if (options.webhook) checkWebhookSecret('telegram', 'webhook.secretToken', options.webhook.secretToken)
    super(options, telegramMediaRefCodec())
    this.#apiRoot = withoutTrailingSlashes(options.apiRoot ?? 'https://api.telegram.org')
    const pollTimeoutMs = ((options.pollTimeoutSeconds ?? TELEGRAM_LIMITS.pollTimeoutSeconds) + 10) * 1000
    this.#client = loadedOnce(() => loadGrammy(options.token, this.#apiRoot, Math.max(this.#timeoutMs(), pollTimeoutMs)))
  }

  /** The webhook server's origin once started in webhook mode (`http://host:port`). */
  get webhookOrigin(): string | undefined {
    return this.#webhook.origin
  }

  async start(sink: InboundSink): Promise<void> {
    const { api } = await this.#client()
    const deliver = async (event: InboundEvent, update: TelegramUpdate) => {
      await sink(event)
      // Stops the client's spinner; the press is already journaled, so a failure here changes nothing.
      if (update.callback_query) void api.answerCallbackQuery(update.callback_query.id).catch(() => undefined)
    }
    const webhook = this.options.webhook
    await this.#call(async () => {
      if (webhook) {
        await this.#webhook.start(
          webhook,
          telegramWebhook({ path: webhook.path ?? '/telegram', secretToken: webhook.secretToken, sink: deliver }),
        )
        if (webhook.url) await api.setWebhook(webhook.url, { secret_token: webhook.secretToken })
      } else {
        // getUpdates is refused while a webhook is set; pending updates stay queued.
        await api.deleteWebhook({ drop_pending_updates: false })
        this.#poller = new TelegramPoller({
          api,
          sink: deliver,
          onError: (error) => this.#reportError(error),
          pollTimeoutSeconds: this.options.pollTimeoutSeconds ?? TELEGRAM_LIMITS.pollTimeoutSeconds,
        })
        this.#poller.start()
      }
    })
  }

  async stop(): Promise<void> {
    const poller = this.#poller
    this.#poller = undefined
    await poller?.stop()
    await this.#webhook.stop()
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const grammy = await this.#client()
    return { messageId: await this.#call(() => sendContent(grammy, chatId, content, AbortSignal.timeout(this.#timeoutMs()))) }
  }

  async edit(chatId: string, messageId: string, content: OutboundContent): Promise<void> {
    const { api } = await this.#client()
    const text = typeof content === 'string' ? content : (content.text ?? content.caption ?? '')
    await this.#call(() => api.editMessageText(chatId, Number(messageId), text))
  }

  async typing(chatId: string): Promise<void> {
    const { api } = await this.#client()
    await this.#call(() => api.sendChatAction(chatId, 'typing'))
  }

  /** Downloads a file by its `file_id` (a live update's file object or a rebuilt reference): `getFile`, then the file URL. */
  async download(media: MediaRef): Promise<Buffer> {
    const fileId = typeof media.token === 'string' ? media.token : (media.token as Partial<TelegramMediaToken> | undefined)?.file_id
    if (typeof fileId !== 'string') throw new MediaDownloadError('telegram', 'the media has no file_id')
    const { api } = await this.#client()
    const signal = AbortSignal.timeout(this.#timeoutMs())
    const file: { file_path?: string; file_size?: number } = await this.#call(() => api.getFile(fileId, apiSignal(signal)))
    if (!file.file_path) throw new MediaDownloadError('telegram', 'getFile returned no file_path (the file is too big for the Bot API)')
    return downloadFile(`${this.#apiRoot}/file/bot${this.options.token}/${file.file_path}`, {
      apiRoot: this.#apiRoot,
      timeoutMs: this.#timeoutMs(),
      token: this.options.token,
      bytesMax: TELEGRAM_LIMITS.downloadBytesMax,
    })
  }

  /** A Bot API call, its failure as the outbox's error classes (the token cut). */
  #call<T>(call: () => Promise<T>): Promise<T> {
    return channelCall(call, (error) => telegramError(error, this.options.token))
  }

  #timeoutMs(): number {
    return this.options.requestTimeoutMs ?? TELEGRAM_LIMITS.requestTimeoutMs
  }

  #reportError(error: unknown): void {
    const safe = telegramError(error, this.options.token)
    if (this.options.onError) this.options.onError(safe)
    else console.error(redact(`telegram: ${safe.message}`, [this.options.token]))
  }
}
