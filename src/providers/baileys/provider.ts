/**
 * `BaileysProvider`: a WhatsApp number linked as a WhatsApp Web device, on the `baileys` library.
 * Its session is leader-only: one socket per WhatsApp account, so with several replicas run it
 * with `durability.providerSession: 'leader'` and only the elected replica connects. Messages
 * arrive over the socket and are read-receipted once journaled; sends, media downloads (expired
 * media re-requested from the sender's phone) and the library's failures as the outbox's classes.
 * The session's keys are never logged, journaled or put in an error.
 */
import type { AuthenticationState, SocketConfig, WAMessage } from 'baileys'
import { ERROR_CODES } from '../../core/errors/errors.js'
import { ProviderNotLeaderError } from '../../core/provider/provider-errors.js'
import type { IProvider, InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { ChannelProvider } from '../shared/channel-provider.js'
import { channelCall } from '../shared/channel-call.js'
import { errorReporter, type OnErrorOption } from '../shared/error-reporter.js'
import { ChannelApiError, MediaDownloadError, ProviderConfigError } from '../shared/errors.js'
import { loadedOnce } from '../shared/once.js'
import { loadBaileys, silentLogger, type BaileysModule, type BaileysSocketFactory } from './client.js'
import { BaileysConnection } from './connection.js'
import { downloadMedia } from './download.js'
import { configuredOrigins, type MediaTestOriginsOption } from '../shared/download.js'
import { baileysError } from './errors.js'
import { BAILEYS_LIMITS } from './limits.js'
import { baileysMediaRefCodec } from './media-ref.js'
import { InboundReceiver } from './receive.js'
import { jidOf, messageContentOf } from './send.js'

/** Options of `BaileysProvider`. Receive and connection failures (a journal that refused a message, a logged-out session) go to `onError`. */
export interface BaileysProviderOptions extends MediaTestOriginsOption, OnErrorOption {
  /** The session's keys: `useMultiFileAuthState(dir).state`, or a store every replica reaches. Never logged nor journaled. */
  auth: AuthenticationState
  /** Saves changed credentials (`useMultiFileAuthState`'s `saveCreds`); called on every `creds.update`. */
  saveCreds?: () => Promise<void> | void
  /** Shows the QR code that pairs a new session (render it with a QR library). @default a line on stderr */
  onQr?: (qr: string) => void
  /** More socket options (browser, version, logger, …), passed to the library as they are. */
  socketConfig?: Omit<Partial<SocketConfig>, 'auth'>
  /** Builds the socket. @default the library's `makeWASocket` */
  socket?: BaileysSocketFactory
  /** Which media WhatsApp means to be seen once may still be journaled. @default { viewOnce: false } */
  durableMedia?: {
    /** Journal view-once media too (a replay can then show it again). @default false */
    viewOnce?: boolean
  }
  /** Send a read receipt once a message is journaled. @default true */
  readReceipts?: boolean
  /** How long a send refused with `rate-overlimit` waits. @default BAILEYS_LIMITS.rateLimitRetryAfterMs (30 s) */
  rateLimitRetryAfterMs?: number
  /** The largest media a download accepts. @default BAILEYS_LIMITS.downloadBytesMax (100 MiB) */
  downloadBytesMax?: number
  /** The longest a download (a re-upload by the phone included) may take. @default BAILEYS_LIMITS.downloadTimeoutMs (60 s) */
  downloadTimeoutMs?: number
  /** How long `start()` waits for the connection to open. @default BAILEYS_LIMITS.startWaitMs (5 s) */
  startWaitMs?: number
}

/** A WhatsApp Web session, as a botmesh provider. */
export class BaileysProvider extends ChannelProvider<BaileysProviderOptions> implements IProvider {
  readonly name = 'baileys'
  readonly textLimit = BAILEYS_LIMITS.textLimit
  readonly session = 'leader' as const
  readonly #load: () => Promise<BaileysModule> = loadedOnce(loadBaileys)
  readonly #reportError: (error: unknown) => void
  #connection: BaileysConnection | undefined
  #receiver: InboundReceiver | undefined

  constructor(options: BaileysProviderOptions) {
    if (!options?.auth?.creds || !options.auth.keys)
      throw new ProviderConfigError('baileys', 'auth is required (an AuthenticationState: { creds, keys })')
    super(options, baileysMediaRefCodec(options.durableMedia ? { durableMedia: options.durableMedia } : {}))
    this.#reportError = errorReporter('baileys', options, [])
  }

  /** Connects; resolves once the connection opened, a QR code waits to be scanned, or `startWaitMs` passed. */
  async start(sink: InboundSink): Promise<void> {
    const baileys = await this.#load()
    const onError = this.#reportError
    const receiver = new InboundReceiver({
      sink,
      normalize: baileys.normalizeMessageContent,
      socket: () => this.#connection?.socket,
      readReceipts: this.options.readReceipts ?? true,
      onError,
    })
    const connection = new BaileysConnection({
      makeSocket: this.options.socket ?? baileys.makeWASocket,
      config: { logger: silentLogger(), ...this.options.socketConfig, auth: this.options.auth },
      saveCreds: this.options.saveCreds,
      onQr: this.options.onQr ?? (() => console.error('baileys: a QR code waits to be scanned; pass onQr to show it')),
      onMessages: (upsert) => receiver.take(upsert),
      onError,
    })
    this.#receiver = receiver
    this.#connection = connection
    await connection.start(this.options.startWaitMs ?? BAILEYS_LIMITS.startWaitMs)
  }

  async stop(): Promise<void> {
    const [connection, receiver] = [this.#connection, this.#receiver]
    this.#connection = undefined
    this.#receiver = undefined
    await connection?.stop()
    await receiver?.stop()
  }

  /** Whether this replica holds an open WhatsApp Web connection now. */
  isLeader(): boolean {
    return this.#connection?.socket !== undefined
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const message = messageContentOf(content)
    const jid = jidOf(chatId)
    const socket = this.#connection?.socket
    // Not charged to the send: it waits for the connection, here or on the replica that leads.
    if (!socket) throw new ProviderNotLeaderError('baileys: this replica holds no open WhatsApp Web connection')
    const rateLimitMs = this.options.rateLimitRetryAfterMs ?? BAILEYS_LIMITS.rateLimitRetryAfterMs
    const sent: WAMessage | undefined = await channelCall(
      () => socket.sendMessage(jid, message),
      (error) => baileysError(error, rateLimitMs),
    )
    const id = sent?.key.id
    if (!id) throw new ChannelApiError('baileys', ERROR_CODES.CHANNEL_SERVER_ERROR, 'baileys: sendMessage answered no message key')
    return { messageId: id }
  }

  /** Downloads and decrypts the media from WhatsApp's CDN under the download policy, asking the sender's phone again when it expired. */
  async download(media: MediaRef): Promise<Buffer> {
    const message = media.token as WAMessage | undefined
    if (!message?.key || !message.message) throw new MediaDownloadError('baileys', 'the media reference holds no WhatsApp message')
    return downloadMedia(message, {
      baileys: await this.#load(),
      socket: this.#connection?.socket,
      logger: this.options.socketConfig?.logger ?? silentLogger(),
      bytesMax: this.options.downloadBytesMax ?? BAILEYS_LIMITS.downloadBytesMax,
      timeoutMs: this.options.downloadTimeoutMs ?? BAILEYS_LIMITS.downloadTimeoutMs,
      trustedOrigins: configuredOrigins('baileys', this.options.mediaTestOrigins),
    })
  }
}
