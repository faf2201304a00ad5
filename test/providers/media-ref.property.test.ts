/**
 * The thirteen media-reference codecs, by property: a stored reference round-trips (through JSON,
 * as a journal keeps it) to a token that downloads the same media; no credential of a live token
 * reaches the stored value; and any change to a stored value is refused with MEDIA_REF_INVALID,
 * whether or not the change recomputed the check.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Json } from '../../src/core/durability/journal/kv.js'
import type { MediaRef, StoredMediaRef } from '../../src/core/provider/provider.js'
import { checkOf } from '../../src/providers/shared/codec.js'
import { MediaRefInvalidError } from '../../src/providers/shared/errors.js'
import { CHANNELS, SECRET, type ChannelFixture } from './fixtures/channels.js'
import { mutation } from './fixtures/mutation.js'

const RUNS = 200

function stored(f: ChannelFixture, token: unknown): StoredMediaRef {
  const media: MediaRef = { type: f.type, token, mimeType: 'image/jpeg' }
  const result = f.codec.serialize(media)
  expect(result, `${f.channel} did not serialize ${JSON.stringify(token)}`).toBeDefined()
  // What the journal keeps is JSON text.
  return JSON.parse(JSON.stringify(result)) as StoredMediaRef
}

function expectRefused(f: ChannelFixture, value: StoredMediaRef): void {
  let thrown: unknown
  try {
    f.codec.rehydrate(value, { type: f.type, token: undefined })
  } catch (error) {
    thrown = error
  }
  expect(thrown, `${f.channel} accepted ${JSON.stringify(value)}`).toBeInstanceOf(MediaRefInvalidError)
  expect(thrown).toMatchObject({ code: 'MEDIA_REF_INVALID', retryable: false })
}

describe.each(CHANNELS.map((f) => [f.channel, f] as const))('%s', (_name, f) => {
  it('a stored reference round-trips to a token that downloads the same media, and serializes again to the same value', () => {
    fc.assert(
      fc.property(f.live, (token) => {
        const value = stored(f, token)
        expect(value.v).toBe(1)
        const rebuilt = f.codec.rehydrate(value, { type: f.type, token: undefined, mimeType: 'image/jpeg' })
        expect(f.identity(rebuilt.token)).toBe(f.identity(token))
        expect(rebuilt).toMatchObject({ type: f.type, mimeType: 'image/jpeg' })
        expect(f.codec.serialize(rebuilt)).toEqual(value)
      }),
      { numRuns: RUNS },
    )
  })

  it('no credential, caption, thumbnail or inline media of a live token reaches the stored value', () => {
    fc.assert(
      fc.property(f.live, (token) => {
        const text = JSON.stringify(stored(f, token))
        expect(text).not.toContain(SECRET)
        expect(text).not.toContain(Buffer.from(SECRET).toString('base64').slice(0, 12))
      }),
      { numRuns: RUNS },
    )
  })

  it('any change to a stored value is refused (the check no longer matches)', () => {
    fc.assert(
      fc.property(
        f.live.map((token) => stored(f, token)),
        fc.infiniteStream(fc.nat()),
        fc.jsonValue(),
        (value, picks, replacement) => {
          const changed = mutation(value.data, picks, replacement as Json)
          fc.pre(JSON.stringify(changed) !== JSON.stringify(value.data))
          expectRefused(f, { v: value.v, data: changed })
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('a hostile value is refused even with its check recomputed (hosts off the allowlist, wrong shapes)', () => {
    fc.assert(
      fc.property(f.live, f.hostile, (token, change) => {
        const { check: _check, ...data } = stored(f, token).data as Record<string, Json>
        const changed = change(data)
        expectRefused(f, { v: 1, data: { ...changed, check: checkOf(f.channel, changed) } })
      }),
      { numRuns: RUNS },
    )
  })

  it('an unknown version, or data that is not an object, is refused', () => {
    fc.assert(
      fc.property(
        f.live.map((token) => stored(f, token)),
        fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.string()),
        (value, v) => {
          fc.pre(v !== 1)
          expectRefused(f, { v: v as number, data: value.data })
        },
      ),
      { numRuns: 50 },
    )
    for (const data of [null, 'x', 1, [], [1], true]) expectRefused(f, { v: 1, data: data as Json })
  })

  it('rehydrating needs no transport: it keeps the type, mime type and file name of the journaled media', () => {
    const [token] = fc.sample(f.live, { numRuns: 1, seed: 7 })
    const value = stored(f, token)
    expect(f.codec.rehydrate(value, { type: f.type, token: undefined, mimeType: 'a/b', fileName: 'f.bin' })).toMatchObject({
      type: f.type,
      mimeType: 'a/b',
      fileName: 'f.bin',
    })
  })
})
