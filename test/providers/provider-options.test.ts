/**
 * The option rules the HTTP channels share, each written once: a server URL must be http(s) and is
 * taken without its trailing slashes (`requireHttpUrl`, `withoutTrailingSlashes`), and a channel's
 * API takes the provider's `requestTimeoutMs` over the channel's default (`channelHttpApi`).
 */
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../src/core/errors/errors.js'
import { ProviderConfigError } from '../../src/providers/shared/errors.js'
import { channelHttpApi } from '../../src/providers/shared/http-api.js'
import { requireHttpUrl } from '../../src/providers/shared/required-options.js'
import { withoutTrailingSlashes } from '../../src/providers/shared/url.js'

describe('requireHttpUrl', () => {
  it('takes an http(s) URL without its trailing slashes', () => {
    expect(requireHttpUrl('evolution', { apiUrl: 'https://evolution.example.com//' }, 'apiUrl')).toBe('https://evolution.example.com')
    expect(requireHttpUrl('wppconnect', { serverUrl: 'http://127.0.0.1:21465/base/' }, 'serverUrl')).toBe('http://127.0.0.1:21465/base')
  })

  it('refuses anything else with ProviderConfigError naming the option, never its value', () => {
    for (const value of ['ftp://files.example.com', 'evolution.example.com', '', undefined, 42]) {
      let thrown: unknown
      try {
        requireHttpUrl('evolution', { apiUrl: value }, 'apiUrl')
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(ProviderConfigError)
      expect(thrown).toMatchObject({ code: ERROR_CODES.PROVIDER_CONFIG_INVALID, message: 'evolution: apiUrl must be an http(s) URL' })
    }
  })
})

describe('withoutTrailingSlashes', () => {
  it('cuts the trailing slashes only', () => {
    expect(withoutTrailingSlashes('https://api.example.com/v1///')).toBe('https://api.example.com/v1')
    expect(withoutTrailingSlashes('https://api.example.com/v1')).toBe('https://api.example.com/v1')
  })
})

describe('channelHttpApi', () => {
  const limits = { requestTimeoutMs: 30_000, rateLimitRetryAfterMsDefault: 10_000 }
  const failure = () => undefined

  it("takes the provider's requestTimeoutMs over the channel's default, and the channel's rate-limit wait", () => {
    const api = channelHttpApi('gupshup', limits, { requestTimeoutMs: 1234 }, { secrets: ['key'], failure })
    expect(api.options).toEqual({ channel: 'gupshup', timeoutMs: 1234, rateLimitRetryAfterMsDefault: 10_000, secrets: ['key'], failure })
  })

  it("falls back to the channel's default timeout", () => {
    expect(channelHttpApi('gupshup', limits, {}, { secrets: [] }).options.timeoutMs).toBe(30_000)
  })
})
