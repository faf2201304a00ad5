/**
 * `DiscordProvider`: a Discord bot on Discord's own clients (`@discordjs/rest`, `@discordjs/ws`).
 * Messages and button presses arrive over the gateway (or presses over the signed interactions
 * endpoint), sends go through the REST API (content, buttons, uploads, embeds), attachments are
 * downloaded from Discord's CDN, and REST failures become the outbox's error classes. The bot
 * token is never logged, journaled or put in an error.
 */
import type { REST } from '@discordjs/rest'
import type { WebSocketManager } from '@discordjs/ws'
import type { IProvider, InboundSink, MediaRef, OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { ChannelProvider, type ChannelProviderOptions } from '../shared/channel-provider.js'
import { channelCall } from '../shared/channel-call.js'
import { MediaDownloadError, ProviderConfigError } from '../shared/errors.js'
import { configuredOrigins, declaredContentTypes, type MediaTestOriginsOption } from '../shared/download.js'
import { errorReporter } from '../shared/error-reporter.js'
import { downloadMedia } from '../shared/http.js'
import type { WebhookEndpoint } from '../shared/http-server.js'
import { loadedOnce } from '../shared/once.js'
import { ReplayCache } from '../shared/replay.js'
import { WebhookServer } from '../shared/webhook-server.js'
import { loadGateway, loadRest } from './client.js'
import { discordError } from './errors.js'
import { receiveFromGateway } from './gateway.js'
import { interactionsKey, interactionsRoute } from './interactions.js'
import { DISCORD_API_DEFAULT, DISCORD_INTENTS_DEFAULT, DISCORD_LIMITS } from './limits.js'
import { DISCORD_MEDIA_HOSTS, discordMediaRefCodec } from './media-ref.js'
import { messageRequest } from './send.js'
import { withoutTrailingSlashes } from '../shared/url.js'

/** Options of `DiscordProvider`. */
export interface DiscordProviderOptions extends MediaTestOriginsOption, ChannelProviderOptions {
  /** The bot token. Never logged nor journaled. */
  token: string
  /** Receive messages and presses over the gateway. @default true */
  gateway?: boolean
  /** Gateway intents. @default DISCORD_INTENTS_DEFAULT (guild and direct messages, message content) */
  intents?: number
  /** Take button presses over HTTP instead (the application's interactions endpoint URL). */
  interactions?: WebhookEndpoint & {
    /** The path it answers on. @default '/interactions' */
    path?: string
    /** The application's public key (hex, Ed25519): Discord signs each interaction with it. */
    publicKey: string
    /** The clock a signed timestamp is checked against (ms since the epoch; tests set it). @default Date.now */
    clock?: () => number
    /** The most signatures remembered to refuse a replay. @default REPLAY_LIMITS.entriesMax (10 000) */
    replayEntriesMax?: number
  }
  /** The REST API root (a proxy, a test double). @default 'https://discord.com/api' */
  apiRoot?: string
  /** The hosts (and their subdomains) a journaled attachment URL may be on. @default DISCORD_MEDIA_HOSTS */
  mediaRefHosts?: readonly string[]
}

/** A Discord bot, as a botmesh provider. */
export class DiscordProvider extends ChannelProvider<DiscordProviderOptions> implements IProvider {
  readonly name = 'discord'
  readonly textLimit = DISCORD_LIMITS.textLimit
  readonly session = 'any' as const
  readonly #rest: () => Promise<REST>
  readonly #reportError: (error: unknown) => void
  readonly #interactions: WebhookServer
  #gateway: WebSocketManager | undefined

  constructor(options: DiscordProviderOptions) {
    if (!options.token) throw new ProviderConfigError('discord', 'token is required')
    if (options.interactions) interactionsKey(options.interactions.publicKey)
    super(options, discordMediaRefCodec(options.mediaRefHosts ? { mediaRefHosts: options.mediaRefHosts } : {}))
    this.#reportError = errorReporter('discord', options, [options.token])
    this.#interactions = new WebhookServer(this.#reportError)
    this.#rest = loadedOnce(() => loadRest({ token: options.token, api: this.#api(), timeoutMs: this.#timeoutMs() }))
  }

  /** The interactions endpoint's origin once started (`http://host:port`). */
  get interactionsOrigin(): string | undefined {
    return this.#interactions.origin
  }

  async start(sink: InboundSink): Promise<void> {
    const rest = await this.#rest()
    const { interactions } = this.options
    if (interactions) {
      const key = interactionsKey(interactions.publicKey)
      const path = interactions.path ?? '/interactions'
      const deps = { path, key, sink, now: interactions.clock ?? Date.now, replays: new ReplayCache(interactions.replayEntriesMax) }
      await this.#interactions.start(interactions, interactionsRoute(deps))
    }
    if (this.options.gateway === false) return
    this.#gateway = await loadGateway({
      token: this.options.token,
      intents: this.options.intents ?? DISCORD_INTENTS_DEFAULT,
      api: this.#api(),
      timeoutMs: this.#timeoutMs(),
    })
    await receiveFromGateway({ manager: this.#gateway, rest, sink, onError: this.#reportError })
  }

  async stop(): Promise<void> {
    const gateway = this.#gateway
    this.#gateway = undefined
    await Promise.all([gateway?.destroy(), this.#interactions.stop()])
  }

  async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const request = await messageRequest(content)
    const rest = await this.#rest()
    const message = (await channelCall(
      () => rest.post(`/channels/${chatId}/messages`, request),
      (error) => discordError(error, this.options.token),
    )) as { id: string }
    return { messageId: message.id }
  }

  /** Downloads an attachment from its CDN URL (signed by Discord: no token is sent), under the download policy. */
  async download(media: MediaRef): Promise<Buffer> {
    const url = (media.token as { url?: unknown } | undefined)?.url
    if (typeof url !== 'string') throw new MediaDownloadError('discord', 'the media has no URL')
    return downloadMedia({ channel: 'discord', timeoutMs: this.#timeoutMs(), secrets: [this.options.token] }, url, {
      policy: {
        hosts: this.options.mediaRefHosts ?? DISCORD_MEDIA_HOSTS,
        trustedOrigins: configuredOrigins('discord', this.options.mediaTestOrigins),
        bytesMax: DISCORD_LIMITS.downloadBytesMax,
        ...declaredContentTypes(media.mimeType),
      },
    })
  }

  #api(): string {
    return withoutTrailingSlashes(this.options.apiRoot ?? DISCORD_API_DEFAULT)
  }

  #timeoutMs(): number {
    return this.options.requestTimeoutMs ?? DISCORD_LIMITS.requestTimeoutMs
  }
}
