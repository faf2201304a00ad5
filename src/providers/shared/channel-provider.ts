/**
 * What every channel's provider repeats, whether it receives by webhook, by polling or over a
 * socket: it keeps the options it was constructed with (`this.options`) and the media-reference
 * codec the journal goes through, which `serializeMediaRef` and `rehydrateMediaRef` hand each
 * reference to. The channel's class gives the rest of `IProvider`: its name, text limit and
 * session, and how it starts, stops, sends and downloads. Webhook channels extend
 * `WebhookProvider`, which adds the webhook server.
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
import type { OnErrorOption } from './error-reporter.js'

/** The options every provider on a channel's HTTP API takes besides its own: its call timeout and `onError`. */
export interface ChannelProviderOptions extends OnErrorOption {
  /** The longest a call to the channel's API, or a download, may take. @default the channel's limits' `requestTimeoutMs` */
  requestTimeoutMs?: number
}

/** A channel's provider: its options and media codec kept once; the channel gives its protocol. */
export abstract class ChannelProvider<Options extends object> implements IProvider {
  /** The channel (journaled with each inbound record). */
  abstract readonly name: string
  /** The longest text the channel accepts in one message; longer texts are split. */
  abstract readonly textLimit: number
  /** The provider's options, as the constructor was given them. */
  protected readonly options: Options
  readonly #codec: MediaRefCodec

  protected constructor(options: Options, codec: MediaRefCodec) {
    this.options = options
    this.#codec = codec
  }

  /** Starts receiving; each inbound event goes to `sink`. */
  abstract start(sink: InboundSink): Promise<void>

  /** Stops receiving; what is in flight is finished first. */
  abstract stop(): Promise<void>

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
}
