/**
 * GoHighLevel media references: the journal keeps the hosted http(s) URL of the media. Any public host
 * is accepted unless `mediaRefHosts` names the hosts; IP literals, `localhost`, private names,
 * userinfo and credential parameters are always refused, and the API key is never journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import { chosenHostsCodec, type HostedMediaOptions, type HostedMediaToken } from '../shared/hosted-url.js'

/** The token a stored reference rebuilds. */
export type GoHighLevelMediaToken = HostedMediaToken

/** Options of the GoHighLevel codec: the hosts (or exact origins) media comes from. */
export type GoHighLevelMediaRefOptions = HostedMediaOptions

/** The GoHighLevel media-reference codec. */
export function gohighlevelMediaRefCodec(options: GoHighLevelMediaRefOptions = {}): MediaRefCodec<GoHighLevelMediaToken> {
  return chosenHostsCodec('gohighlevel', options)
}
