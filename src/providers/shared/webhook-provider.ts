/**
 * The provider of a channel that receives by webhook alone (Evolution, WPPConnect, Gupshup,
 * HighLevel, TikTok, WhatsApp Cloud, Twilio, the Messenger Platform): what each of them repeats,
 * written once. It owns the webhook server (started on the endpoint of the options' `webhook`,
 * stopped once, its failures reported with the channel's secrets cut), the origin tests and
 * operators read, and the media-reference codec the journal goes through. A channel's class keeps
 * its protocol: the route its webhook answers with, its sends and its downloads.
 */
import type {
  InboundSink,
  IProvider,
  MediaRef,
  OutboundContent,
  ProviderSendOptions,
  ProviderSendResult,
  StoredMediaRef,
} from '../../core/provider/provider.js'
import type { MediaRefCodec } from './codec.js'
import { errorReporter, type OnErrorOption } from './error-reporter.js'
import type { WebhookEndpoint } from './http-server.js'
import { WebhookServer, type WebhookRoute } from './webhook-server.js'

/**
 * The options every webhook channel's provider takes besides its own (its credentials and its
 * `webhook`, whose path each channel names).
 */
export interface WebhookProviderOptions {
  /** The longest a call to the channel's API, or a download, may take. @default the channel's limits' `requestTimeoutMs` (30 s) */
  requestTimeoutMs?: number
  /** Where webhook failures go (a journal that refused a message). @default console.error */
  onError?: (error: unknown) => void
}

/** The options the shared part reads: the endpoint the options' `webhook` names, and where failures go (`onError`). */
export type WebhookChannelOptions = OnErrorOption & { webhook: WebhookEndpoint }

/** What a webhook channel tells the shared part. */
export interface WebhookChannel<Options extends WebhookChannelOptions = WebhookChannelOptions> {
  /** The channel (the provider's `name`), named in every reported failure. */
  channel: string
  /** The provider's options, kept for the channel's class as `options`. */
  options: Options
  /** Tokens and keys cut from a failure reported on stderr. */
  secrets: readonly (string | undefined)[]
  /** The channel's media-reference codec. */
  codec: MediaRefCodec
}

/** A channel that receives by webhook: the shared lifecycle; the channel gives its route, sends and downloads. */
export abstract class WebhookProvider<Options extends WebhookChannelOptions = WebhookChannelOptions> implements IProvider {
  /** The channel (journaled with each inbound record). */
  abstract readonly name: string
  /** The longest text the channel accepts in one message; longer texts are split. */
  abstract readonly textLimit: number
  readonly session = 'any' as const
  /** The provider's options, as the constructor was given them. */
  protected readonly options: Options
  readonly #endpoint: WebhookEndpoint
  readonly #codec: MediaRefCodec
  readonly #webhook: WebhookServer

  protected constructor(channel: WebhookChannel<Options>) {
    this.options = channel.options
    this.#endpoint = channel.options.webhook
    this.#codec = channel.codec
    this.#webhook = new WebhookServer(errorReporter(channel.channel, channel.options, channel.secrets))
  }

  /** The webhook server's origin once started (`http://host:port`). */
  get webhookOrigin(): string | undefined {
    return this.#webhook.origin
  }

  /** Starts the webhook server with the channel's route, which hands what it verified to `sink`. */
  async start(sink: InboundSink): Promise<void> {
    await this.#webhook.start(this.#endpoint, await this.route(sink))
  }

  /** Stops the webhook server; the requests in flight are answered first. */
  async stop(): Promise<void> {
    await this.#webhook.stop()
  }

  /**
   * Sends `content` to `chatId` once through the channel's API; an error it throws says whether a
   * retry can help (see {@link IProvider.send}).
   */
  abstract send(chatId: string, content: OutboundContent, options?: ProviderSendOptions): Promise<ProviderSendResult>

  /** The bytes of an inbound message's media, fetched from the channel. */
  abstract download(media: MediaRef): Promise<Buffer>

  /** The channel's media reference as the journal stores it. */
  serializeMediaRef(media: MediaRef): StoredMediaRef | undefined {
    return this.#codec.serialize(media)
  }

  /** A media reference read back from the journal, usable for a download again. */
  rehydrateMediaRef(stored: StoredMediaRef, media: MediaRef): MediaRef {
    return this.#codec.rehydrate(stored, media)
  }

  /**
   * The channel's webhook protocol, built for `sink` when the provider starts.
   * @internal
   */
  protected abstract route(sink: InboundSink): WebhookRoute | Promise<WebhookRoute>
}
