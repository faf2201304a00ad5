/**
 * Gupshup media references: the journal keeps the hosted http(s) URL of the media. Any public host
 * is accepted unless `mediaRefHosts` names the hosts; IP literals, `localhost`, private names,
 * userinfo and credential parameters are always refused, and the API key is never journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import { chosenHostsCodec, type HostedMediaOptions, type HostedMediaToken } from '../shared/hosted-url.js'

/** The token a stored reference rebuilds. */
export type GupshupMediaToken = HostedMediaToken

/** Options of the Gupshup codec: the hosts (or exact origins) media comes from. */
export type GupshupMediaRefOptions = HostedMediaOptions

/** The Gupshup media-reference codec. */
export function gupshupMediaRefCodec(options: GupshupMediaRefOptions = {}): MediaRefCodec<GupshupMediaToken> {
  return chosenHostsCodec('gupshup', options)
}
