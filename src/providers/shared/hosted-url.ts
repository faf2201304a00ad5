/**
 * The codec of channels whose media reference is a hosted URL (Twilio, Messenger, Instagram,
 * Discord, Gupshup, GoHighLevel): the URL is journaled only when its policy accepts it, without
 * userinfo or credential parameters, and accepted back only under the same policy.
 */
import type { MediaRef } from '../../core/provider/provider.js'
import { defineMediaRefCodec, type MediaRefCodec } from './codec.js'
import { objectProblem, prop } from './shape.js'
import { declaredContentTypes, type DownloadPolicy } from './download.js'
import type { HttpApi } from './http-api.js'
import { MediaDownloadError } from './errors.js'
import { hostList, journalableUrl, urlProblem, type UrlPolicy } from './url.js'

/** The token of a media reference by hosted URL, live (with other fields) or rebuilt. */
export interface HostedMediaToken {
  /** The media's URL on the channel's host (credential parameters never journaled). */
  url: string
}

/** A codec journaling `{ url }` from a live token that is a URL or carries `url`. */
export function hostedUrlCodec(channel: string, policy: UrlPolicy): MediaRefCodec<HostedMediaToken> {
  return defineMediaRefCodec<{ url: string }, HostedMediaToken>({
    channel,
    pick(token) {
      const url = journalableUrl(typeof token === 'string' ? token : prop(token, 'url'), policy)
      return url === undefined ? undefined : { url }
    },
    problem: (data) => objectProblem(data, { url: (value) => urlProblem(value, policy) }),
    token: (data) => ({ url: data.url }),
  })
}

/** The options of a channel whose media hosts are the operator's choice (Gupshup, GoHighLevel). */
export interface HostedMediaOptions {
  /** The only hosts (and their subdomains) media comes from. @default any public host name */
  mediaRefHosts?: readonly string[]
  /** Exact origins besides the hosts (a media proxy of yours), trusted as configured: plain HTTP and a private address are allowed there. @default none */
  mediaRefOrigins?: readonly string[]
}

/** The hosts and exact origins `options` names, checked: such a channel's codec and download policy read the same ones. */
function chosenHosts(channel: string, options: HostedMediaOptions): { hosts?: readonly string[]; origins?: readonly string[] } {
  const hosts = options.mediaRefHosts === undefined ? undefined : hostList(channel, options.mediaRefHosts, [])
  const origins = options.mediaRefOrigins?.map((origin) => new URL(origin).origin)
  return { ...(hosts ? { hosts } : {}), ...(origins ? { origins } : {}) }
}

/**
 * The codec of such a channel: the hosted http(s) URL is journaled when it is on `mediaRefHosts`
 * (any public host name without it) or one of `mediaRefOrigins`.
 */
export function chosenHostsCodec(channel: string, options: HostedMediaOptions): MediaRefCodec<HostedMediaToken> {
  return hostedUrlCodec(channel, { ...chosenHosts(channel, options), schemes: ['https:', 'http:'] })
}

/**
 * The download policy of such a channel, the same for live and replayed media: HTTPS to
 * `mediaRefHosts` (any public host name without it) at public addresses, or one of
 * `mediaRefOrigins` exactly (a media proxy of yours, a test double on 127.0.0.1).
 */
export function hostedDownloadPolicy(channel: string, options: HostedMediaOptions, bytesMax: number): DownloadPolicy {
  const { hosts, origins } = chosenHosts(channel, options)
  return { ...(hosts ? { hosts } : {}), ...(origins ? { trustedOrigins: origins } : {}), bytesMax }
}

/** The URL a hosted media token carries, or the error saying it has none. */
export function hostedUrlOf(channel: string, media: MediaRef): string {
  const token = media.token as Partial<HostedMediaToken> | string | undefined
  const url = typeof token === 'string' ? token : token?.url
  if (typeof url !== 'string') throw new MediaDownloadError(channel, 'the media has no URL')
  return url
}

/**
 * The bytes of hosted media through the channel's `api`, under its download `policy` narrowed to
 * the type the media declares. No credentials are sent: the URL is the channel's host, not its API.
 */
export function downloadHosted(api: HttpApi, media: MediaRef, policy: DownloadPolicy): Promise<Buffer> {
  return api.download(hostedUrlOf(api.options.channel, media), { policy: { ...policy, ...declaredContentTypes(media.mimeType) } })
}
