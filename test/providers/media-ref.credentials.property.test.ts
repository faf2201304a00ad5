/**
 * No media-reference codec journals a credential carried in a URL's query: every codec of
 * src/providers/<channel>/media-ref.ts, given live tokens whose URLs (and Baileys' direct path)
 * carry a parameter named for a token, a key, a secret or a password, in any spelling
 * (`auth_token`, `apiKey`, `X-Amz-Security-Token`, `clientsecret`, …), journals either nothing or
 * a value without it. The hosted-URL codecs strip it and still journal the reference, so a replay
 * can download; a URL's own signature stays.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MediaRef } from '../../src/core/provider/provider.js'
import { isCredentialParam } from '../../src/providers/shared/url.js'
import { CHANNELS } from './fixtures/channels.js'

const RUNS = 300
const PLANTED = 'PLANTED_QUERY_CREDENTIAL_5e7a'

/** The channels whose media reference is a hosted URL (shared/hosted-url.ts). */
const HOSTED = new Set(['twilio', 'messenger', 'instagram', 'discord', 'gupshup', 'gohighlevel'])

const words = ['token', 'key', 'secret', 'password', 'passwd', 'pwd', 'auth', 'apikey', 'authorization', 'jwt', 'bearer']
const oneWordMarks = ['token', 'secret', 'password', 'apikey', 'accesskey', 'privatekey']
const prefixes = ['', 'auth', 'access', 'api', 'client', 'app', 'x', 'X-Amz-Security', 'refresh', 'id', 'session', 'my', 'private']

/** The ways an API may write a name, kept apart so that a spelling never loses its word boundaries. */
const anyCase = (name: string) => fc.constantFrom(name, name.toUpperCase(), name.toLowerCase())

/** A credential parameter name: a credential word with a prefix, joined in the ways APIs spell them. */
const credentialName = fc.oneof(
  fc
    .tuple(fc.constantFrom(...prefixes), fc.constantFrom(...words), fc.constantFrom('_', '-', '.'))
    .chain(([prefix, word, separator]) => anyCase(prefix ? `${prefix}${separator}${word}` : word)),
  fc
    .tuple(fc.constantFrom(...prefixes.filter((prefix) => /^[a-z]+$/.test(prefix))), fc.constantFrom(...words))
    .map(([prefix, word]) => `${prefix}${word[0]!.toUpperCase()}${word.slice(1)}`),
  fc
    .tuple(fc.constantFrom(...prefixes), fc.constantFrom(...oneWordMarks))
    .chain(([prefix, mark]) => anyCase(`${prefix}${mark}`.replace(/-/g, ''))),
)

/** Every string of `token` that is a URL or a path with a query gets `name=PLANTED` added (deeply; Buffers untouched). */
function plant(token: unknown, name: string): unknown {
  if (typeof token === 'string') {
    if (!/^(https?:\/\/|\/)/.test(token)) return token
    const [beforeHash, hash] = token.split('#', 2) as [string, string | undefined]
    const joined = `${beforeHash}${beforeHash.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=${PLANTED}`
    return hash === undefined ? joined : `${joined}#${hash}`
  }
  if (Array.isArray(token)) return token.map((item) => plant(item, name))
  if (token === null || typeof token !== 'object' || Buffer.isBuffer(token) || token instanceof Uint8Array) return token
  return Object.fromEntries(Object.entries(token).map(([key, value]) => [key, plant(value, name)]))
}

describe('credential query parameters in media references', () => {
  it('the fixtures cover every codec of src/providers/*/media-ref.ts', () => {
    const root = join(import.meta.dirname, '../../src/providers')
    const withCodec = readdirSync(root).filter((entry) => {
      const folder = join(root, entry)
      return statSync(folder).isDirectory() && readdirSync(folder).includes('media-ref.ts')
    })
    expect(CHANNELS.map((f) => f.channel).sort()).toEqual(withCodec.sort())
  })

  it('every generated name reads as a credential, and a URL’s own signature does not', () => {
    fc.assert(
      fc.property(credentialName, (name) => {
        expect(isCredentialParam(name), name).toBe(true)
      }),
    )
    for (const name of [
      'signature',
      'X-Amz-Signature',
      'X-Goog-Signature',
      'x-signature',
      'sig',
      'hm',
      'oh',
      'oe',
      'ex',
      'is',
      '_nc_sid',
      'ccb',
      'asset_id',
      'mid',
      'download',
      'X-Amz-Credential',
      'monkey',
    ])
      expect(isCredentialParam(name), name).toBe(false)
  })

  describe.each(CHANNELS.map((f) => [f.channel, f] as const))('%s', (channel, f) => {
    it('journals no credential parameter of a live token’s URLs', () => {
      fc.assert(
        fc.property(f.live, credentialName, (token, name) => {
          const media: MediaRef = { type: f.type, token: plant(token, name), mimeType: 'image/jpeg' }
          const stored = f.codec.serialize(media)
          if (HOSTED.has(channel)) expect(stored, `${channel} refused a URL it could strip (${name})`).toBeDefined()
          if (stored === undefined) return
          const text = JSON.stringify(stored)
          expect(text, `${channel} journaled ${name}`).not.toContain(PLANTED)
          // What was journaled still downloads the same media once rebuilt.
          const rebuilt = f.codec.rehydrate(JSON.parse(text), { type: f.type, token: undefined })
          expect(f.identity(rebuilt.token)).toBe(f.identity(token))
        }),
        { numRuns: RUNS },
      )
    })
  })
})
