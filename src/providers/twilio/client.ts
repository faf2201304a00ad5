/**
 * The `twilio` package, loaded only when a Twilio provider starts or sends: `import 'botmesh/core'`
 * (and even `import 'botmesh/providers/twilio'`) never loads it. Its REST client goes through an
 * HTTP client of ours that points it at `apiOrigin` (a regional edge, a proxy, a test double) and
 * turns HTTP 429 into `RateLimitedError` with the `Retry-After` the library would not pass on.
 */
import type TwilioSdk from 'twilio'
import { RateLimitedError } from '../../core/provider/provider-errors.js'
import { loadDriver } from '../shared/driver.js'
import { retryAfterMs } from '../shared/http.js'
import { TWILIO_API_ORIGIN_DEFAULT, TWILIO_LIMITS } from './limits.js'

/** The parts of the library the transport uses. */
export interface TwilioClient {
  /** Creates a message (`POST /2010-04-01/Accounts/{sid}/Messages.json`). */
  createMessage(params: Record<string, unknown>): Promise<{ sid: string }>
  /** Whether `signature` is Twilio's signature of `url` with `params` (`X-Twilio-Signature`). */
  validSignature(signature: string, url: string, params: Record<string, string | string[]>): boolean
}

/** Loads the library and makes a client for the account. */
export async function loadTwilio(options: {
  accountSid: string
  authToken: string
  apiOrigin: string
  timeoutMs: number
}): Promise<TwilioClient> {
  const module = await loadDriver('twilio', 'twilio', () => import('twilio'))
  const twilio = (module as { default?: typeof TwilioSdk }).default ?? (module as unknown as typeof TwilioSdk)
  const inner = new twilio.RequestClient({ timeout: options.timeoutMs })
  const httpClient = {
    async request(opts: TwilioSdk.RequestClient extends { request(o: infer O): unknown } ? O : never) {
      const response = await inner.request({ ...opts, uri: pointedAt(opts.uri, options.apiOrigin) })
      if (response.statusCode === 429) {
        const header = (response.headers as Record<string, string | undefined>)?.['retry-after']
        throw new RateLimitedError(
          retryAfterMs(header, TWILIO_LIMITS.rateLimitRetryAfterMsDefault),
          'twilio: the REST API answered 429 (too many requests)',
        )
      }
      return response
    },
  }
  const client = twilio(options.accountSid, options.authToken, { httpClient: httpClient as unknown as TwilioSdk.RequestClient })
  return {
    createMessage: (params) => client.messages.create(params as never),
    validSignature: (signature, url, params) => twilio.validateRequest(options.authToken, signature, url, params),
  }
}

/** The library's URL on `apiOrigin` instead of Twilio's own hosts (left as it is for the default origin). */
function pointedAt(uri: string, apiOrigin: string): string {
  if (apiOrigin === TWILIO_API_ORIGIN_DEFAULT) return uri
  const url = new URL(uri)
  return `${apiOrigin}${url.pathname}${url.search}`
}
