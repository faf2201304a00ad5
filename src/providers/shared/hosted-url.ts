/**
 * The codec of channels whose media reference is a hosted URL (Twilio, Messenger, Instagram,
 * Discord, Gupshup, GoHighLevel): the URL is journaled only when its policy accepts it, without
 * userinfo or credential parameters, and accepted back only under the same policy.
 */
import { defineMediaRefCodec, type MediaRefCodec } from './codec.js'
import { objectProblem, prop } from './shape.js'
import { journalableUrl, urlProblem, type UrlPolicy } from './url.js'

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
