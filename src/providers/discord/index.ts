/**
 * `botmesh/providers/discord`: a Discord bot on `@discordjs/rest` and `@discordjs/ws` (optional peer
 * dependencies, loaded only when the provider starts or sends): gateway messages and button
 * presses, or presses over the signed interactions endpoint; REST sends; CDN downloads; and the
 * Discord media reference (the attachment URL).
 *
 * @module botmesh/providers/discord
 */
export { DiscordProvider, type DiscordProviderOptions } from './provider.js'
export { discordError } from './errors.js'
export { DISCORD_LIMITS, DISCORD_INTENTS_DEFAULT, DISCORD_API_DEFAULT } from './limits.js'
export { validInteractionSignature, interactionsKey } from './interactions.js'
export type { WebhookRequest } from '../shared/http-server.js'
export { DISCORD_MEDIA_HOSTS, discordMediaRefCodec, type DiscordMediaToken, type DiscordMediaRefOptions } from './media-ref.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
