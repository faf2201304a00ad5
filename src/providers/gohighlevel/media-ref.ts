/**
 * GoHighLevel media references: the journal keeps the hosted http(s) URL of the media. Any public host
 * is accepted unless `mediaRefHosts` names the hosts; IP literals, `localhost`, private names,
 * userinfo and credential parameters are always refused, and the API key is never journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import { hostedUrlCodec, type HostedMediaToken } from '../shared/hosted-url.js'
import { hostList } from '../shared/url.js'

/** The token a stored reference rebuilds. */
export type GoHighLevelMediaToken = HostedMediaToken

/** Options of the GoHighLevel codec. */
export interface GoHighLevelMediaRefOptions {
  /** The only hosts (and their subdomains) accepted. @default any public host name */
  mediaRefHosts?: readonly string[]
  /** Exact origins accepted besides the hosts (a media proxy of yours, `https://media.internal.example:8443`). @default none */
  mediaRefOrigins?: readonly string[]
}

/** The GoHighLevel media-reference codec. */
export function gohighlevelMediaRefCodec(options: GoHighLevelMediaRefOptions = {}): MediaRefCodec<GoHighLevelMediaToken> {
  const hosts = options.mediaRefHosts === undefined ? undefined : hostList('gohighlevel', options.mediaRefHosts, [])
  const origins = options.mediaRefOrigins?.map((origin) => new URL(origin).origin)
  return hostedUrlCodec('gohighlevel', { ...(hosts ? { hosts } : {}), ...(origins ? { origins } : {}), schemes: ['https:', 'http:'] })
}
