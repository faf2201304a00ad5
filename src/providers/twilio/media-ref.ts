/**
 * Twilio media references: the journal keeps the media URL. Only `https` URLs on the API origin or
 * a `twilio.com` host are journaled and accepted back; the account SID and auth token are added at
 * download time (HTTP basic auth), never journaled.
 */
import type { MediaRefCodec } from '../shared/codec.js'
import { hostedUrlCodec, type HostedMediaToken } from '../shared/hosted-url.js'

/** The token a stored reference rebuilds. */
export type TwilioMediaToken = HostedMediaToken

/** Options of the Twilio codec. */
export interface TwilioMediaRefOptions {
  /** The API origin media URLs are served from. @default 'https://api.twilio.com' */
  apiOrigin?: string
}

/** The Twilio media-reference codec. */
export function twilioMediaRefCodec(options: TwilioMediaRefOptions = {}): MediaRefCodec<TwilioMediaToken> {
  const apiOrigin = new URL(options.apiOrigin ?? 'https://api.twilio.com').origin
  return hostedUrlCodec('twilio', { origins: [apiOrigin], hosts: ['twilio.com'], schemes: ['https:'] })
}
