/**
 * The provider of a channel that receives by webhook alone (Evolution, WPPConnect, Gupshup,
 * HighLevel, TikTok, WhatsApp Cloud, Twilio, the Messenger Platform): what each of them repeats,
 * written once. It owns the webhook server (started on the endpoint of the options' `webhook`,
 * stopped once, its failures reported with the channel's secrets cut), the origin tests and
 * operators read; the options and the media-reference codec are kept by `ChannelProvider`. A
 * channel's class keeps its protocol: the route its webhook answers with, its sends and its downloads.
 */
import type { InboundSink, IProvider } from '../../core/provider/provider.js'
import { ChannelProvider } from './channel-provider.js'
import type { MediaRefCodec } from './codec.js'
import { errorReporter, type OnErrorOption } from './error-reporter.js'
import type { WebhookEndpoint } from './http-server.js'
import { WebhookServer, type WebhookRoute } from './webhook-server.js'

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
export abstract class WebhookProvider<Options extends WebhookChannelOptions = WebhookChannelOptions>
  extends ChannelProvider<Options>
  implements IProvider
{
  readonly session = 'any' as const
  readonly #endpoint: WebhookEndpoint
  readonly #webhook: WebhookServer

  protected constructor(channel: WebhookChannel<Options>) {
    super(channel.options, channel.codec)
    this.#endpoint = channel.options.webhook
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
   * The channel's webhook protocol, built for `sink` when the provider starts.
   * @internal
   */
  protected abstract route(sink: InboundSink): WebhookRoute | Promise<WebhookRoute>
}
