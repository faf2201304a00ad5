/**
 * Discord media references: the journal keeps the attachment URL. Only URLs on the Discord CDNs
 * are journaled and accepted back (`mediaRefHosts` replaces the list). Discord attachment URLs are
 * signed and expire after about 24 hours; the bot token is never journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import { hostedUrlCodec, type HostedMediaToken } from '../shared/hosted-url.js'
import { hostList } from '../shared/url.js'

/** The token a stored reference rebuilds (a live attachment object has more fields). */
export type DiscordMediaToken = HostedMediaToken

/** The Discord CDNs (`cdn.discordapp.com`, `media.discordapp.net`). */
export const DISCORD_MEDIA_HOSTS: readonly string[] = ['discordapp.com', 'discordapp.net']

/** Options of the Discord codec. */
export interface DiscordMediaRefOptions {
  /** The hosts (and their subdomains) accepted; replaces the list. @default DISCORD_MEDIA_HOSTS */
  mediaRefHosts?: readonly string[]
}

/** The Discord media-reference codec. */
export function discordMediaRefCodec(options: DiscordMediaRefOptions = {}): MediaRefCodec<DiscordMediaToken> {
  return hostedUrlCodec('discord', { hosts: hostList('discord', options.mediaRefHosts, DISCORD_MEDIA_HOSTS), schemes: ['https:'] })
}
