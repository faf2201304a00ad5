/**
 * Graph API sends and downloads against a fake Graph API on 127.0.0.1: text, media by link and by
 * upload, reply buttons, media download by id; and the Cloud API's failures as the outbox's error
 * classes (24-hour window, rate limits, unsupported content, payload limits, unreachable
 * recipients), none of them carrying a secret.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import { MetaCloudProvider } from '../../src/providers/meta/index.js'
import { MetaApiError } from '../../src/providers/meta/errors.js'
import { MediaDownloadError, ProviderConfigError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { FakeGraph, type GraphFailure } from './fixtures/fake-graph.js'
import { PHONE_NUMBER_ID } from './fixtures/meta-webhooks.js'
import { FAST, useBots } from './harness.js'

const ACCESS_TOKEN = 'EAAG-secret-access-token-abc'
const SECRETS = [ACCESS_TOKEN, 'app-secret-def', 'verify-token-ghi']
const bots = useBots()
let graph: FakeGraph
afterEach(async () => {
  await graph?.stop()
})

async function provider(token = ACCESS_TOKEN): Promise<MetaCloudProvider> {
  graph = await new FakeGraph(ACCESS_TOKEN, PHONE_NUMBER_ID).start()
  return new MetaCloudProvider({
    accessToken: token,
    phoneNumberId: PHONE_NUMBER_ID,
    appSecret: SECRETS[1]!,
    verifyToken: SECRETS[2]!,
    webhook: { port: 0, host: '127.0.0.1' },
    graphApiRoot: graph.origin,
  })
}
const failure = (p: MetaCloudProvider, content: Parameters<MetaCloudProvider['send']>[1] = 'hello') =>
  p.send('5511999999999', content).then(
    () => new Error('sent'),
    (e: Error) => e,
  )

describe('MetaCloudProvider: sends', () => {
  it('text, media by link with caption, media uploaded from bytes, reply buttons', async () => {
    const p = await provider()
    expect(p.textLimit).toBe(4096)
    expect((await p.send('5511999999999', 'hi')).messageId).toMatch(/^wamid\./)
    await p.send('5511999999999', { media: { type: 'image', url: 'https://example.com/a.jpg' }, caption: 'a photo' })
    await p.send('5511999999999', {
      media: { type: 'document', buffer: Buffer.from('%PDF'), mimeType: 'application/pdf', fileName: 'invoice.pdf' },
      caption: 'your invoice',
    })
    await p.send('5511999999999', {
      text: 'Confirm?',
      buttons: [
        { id: 'yes', title: 'Yes' },
        { id: 'no', title: 'No' },
      ],
    })
    expect(graph.sent.map((s) => s.body.type)).toEqual(['text', 'image', 'document', 'interactive'])
    expect(graph.sent[1]!.body.image).toEqual({ link: 'https://example.com/a.jpg', caption: 'a photo' })
    expect(graph.uploads).toEqual([
      { id: expect.any(String), type: 'application/pdf', file: { name: 'invoice.pdf', bytes: Buffer.from('%PDF') } },
    ])
    expect(graph.sent[2]!.body.document).toEqual({ id: graph.uploads[0]!.id, caption: 'your invoice', filename: 'invoice.pdf' })
    expect(graph.sent[3]!.body.interactive).toMatchObject({
      type: 'button',
      body: { text: 'Confirm?' },
      action: {
        buttons: [
          { type: 'reply', reply: { id: 'yes', title: 'Yes' } },
          { type: 'reply', reply: { id: 'no', title: 'No' } },
        ],
      },
    })
  })

  it('a text over 4096 characters is split by the bot into parts the Cloud API accepts', async () => {
    const p = await provider()
    const bot = await bots.start({ provider: p, durability: { ...FAST } })
    await bot.send('5511999999999', 'y'.repeat(5000))
    expect(graph.texts().map((t) => t.length)).toEqual([4096, 904])
  })

  it('downloads media by id: the media URL from the Graph API, then its bytes with the token', async () => {
    const p = await provider()
    graph.media.set('1234567890', { bytes: Buffer.from('jpeg'), mime: 'image/jpeg' })
    expect(await p.download({ type: 'image', token: { id: '1234567890', mime_type: 'image/jpeg' } })).toEqual(Buffer.from('jpeg'))
    expect(graph.requests.filter((r) => r.method === 'GET').map((r) => r.path)).toEqual(['/v21.0/1234567890', '/media-download/1234567890'])
    const missing = await p.download({ type: 'image', token: { id: '42' } }).catch((e: Error) => e)
    expect(missing).toMatchObject({ code: 'META_REJECTED', retryable: false })
    expect(await p.download({ type: 'image', token: { id: 'x/../1' } }).catch((e: Error) => e)).toBeInstanceOf(MediaDownloadError)
  })
})

describe('MetaCloudProvider: Cloud API failures', () => {
  const cases: [string, GraphFailure, new (...args: never[]) => Error, Record<string, unknown>][] = [
    [
      'the 24-hour window is closed',
      {
        status: 400,
        error: {
          message: 'Re-engagement message',
          code: 131047,
          error_data: {
            details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
          },
        },
      },
      OutsideSessionWindowError,
      { retryable: false },
    ],
    [
      'a throughput limit with Retry-After',
      { status: 400, error: { message: 'Rate limit hit', code: 130429 }, retryAfter: '7' },
      RateLimitedError,
      { retryAfterMs: 7000 },
    ],
    [
      'a pair rate limit without Retry-After',
      { status: 400, error: { message: 'Spam rate limit hit', code: 131056 } },
      RateLimitedError,
      { retryAfterMs: 60_000 },
    ],
    ['HTTP 429', { status: 429, error: { message: 'Application request limit reached', code: 4 } }, RateLimitedError, { retryable: true }],
    [
      'an unsupported message type',
      { status: 400, error: { message: 'Message type unknown', code: 131051 } },
      UnsupportedContentError,
      { retryable: false },
    ],
    [
      'a payload over the limit',
      { status: 413, error: { message: 'Request Entity Too Large', code: 100 } },
      PayloadTooLargeError,
      { retryable: false },
    ],
    [
      'a parameter over its length',
      {
        status: 400,
        error: {
          message: 'Invalid parameter',
          code: 100,
          error_data: { details: 'Param text[body] must be at most 4096 characters long.' },
        },
      },
      PayloadTooLargeError,
      { retryable: false },
    ],
    [
      'an undeliverable recipient',
      { status: 400, error: { message: 'Message Undeliverable', code: 131026 } },
      RecipientUnreachableError,
      { retryable: false },
    ],
    [
      'an expired access token',
      { status: 401, error: { message: 'Error validating access token: Session has expired', code: 190 } },
      MetaApiError,
      { code: 'META_UNAUTHORIZED', retryable: false },
    ],
    [
      'a server error',
      { status: 500, error: { message: 'Internal error', code: 131000 } },
      MetaApiError,
      { code: 'META_SERVER_ERROR', retryable: true },
    ],
    [
      'another client error',
      { status: 400, error: { message: 'Invalid parameter', code: 100 } },
      MetaApiError,
      { code: 'META_REJECTED', retryable: false },
    ],
  ]
  it.each(cases)('%s', async (_name, graphFailure, type, fields) => {
    const p = await provider()
    graph.failNext(graphFailure)
    const error = await failure(p)
    expect(error).toBeInstanceOf(type)
    expect(error).toMatchObject(fields)
    for (const secret of SECRETS) expect(error.message).not.toContain(secret)
  })

  it('content the channel cannot carry is refused before any call', async () => {
    const p = await provider()
    expect(await failure(p, { text: 'pick', buttons: [1, 2, 3, 4].map((n) => ({ id: `b${n}`, title: `B${n}` })) })).toBeInstanceOf(
      UnsupportedContentError,
    )
    expect(await failure(p, { text: 'pick', buttons: [{ id: 'b', title: 'a title longer than twenty' }] })).toBeInstanceOf(
      PayloadTooLargeError,
    )
    expect(await failure(p, { media: { type: 'image', url: 'https://example.com/a.jpg' }, caption: 'c'.repeat(1025) })).toBeInstanceOf(
      PayloadTooLargeError,
    )
    expect(await failure(p, {})).toBeInstanceOf(UnsupportedContentError)
    expect(graph.requests).toEqual([])
  })

  it('a window-closed send is dead-lettered after one call; a rate-limited one waits and goes out', async () => {
    const p = await provider()
    const dead: unknown[] = []
    const bot = await bots.start({ provider: p, durability: { ...FAST, backend: new MemoryDurability() } })
    bot.on('durability:dead', (info) => dead.push(info))
    graph.failNext({ status: 400, error: { message: 'Re-engagement message', code: 131047 } })
    await expect(bot.send('5511999999999', 'late reply')).rejects.toThrow()
    await waitFor(() => dead.length === 1)
    graph.failNext({ status: 400, error: { message: 'Rate limit hit', code: 130429 }, retryAfter: '0' })
    await bot.send('5511999999999', 'after the limit')
    expect(graph.texts()).toEqual(['after the limit'])
    expect(graph.requests.filter((r) => r.method === 'POST')).toHaveLength(3)
  })

  it('no secret in an error: a wrong token, an unreachable API', async () => {
    const wrong = await failure(await provider('EAAG-wrong-token-xyz'))
    expect(wrong).toMatchObject({ code: 'META_UNAUTHORIZED', retryable: false })
    expect(wrong.message).not.toContain('EAAG-wrong-token-xyz')
    await graph.stop()
    const p = await provider()
    await graph.stop()
    const unreachable = await failure(p)
    expect(unreachable).toMatchObject({ code: 'META_NETWORK', retryable: true })
    for (const secret of SECRETS) expect(unreachable.message).not.toContain(secret)
  })

  it('a Graph error that quotes the access token is reported without it', async () => {
    const p = await provider()
    graph.failNext({
      status: 400,
      error: { message: `Invalid parameter: https://graph.example/x?access_token=${ACCESS_TOKEN}`, code: 100 },
    })
    const error = await failure(p)
    expect(error).toMatchObject({ code: 'META_REJECTED' })
    expect(error.message).not.toContain(ACCESS_TOKEN)
  })

  it('rebuilds a journaled media reference without the transport started', () => {
    const p = new MetaCloudProvider({
      accessToken: ACCESS_TOKEN,
      phoneNumberId: PHONE_NUMBER_ID,
      appSecret: 'a',
      verifyToken: 'v',
      webhook: { port: 0 },
    })
    const stored = p.serializeMediaRef({
      type: 'image',
      token: { id: '1037543291543636', url: `https://lookaside.fbsbx.com/x?access_token=${ACCESS_TOKEN}` },
    })!
    expect(JSON.stringify(stored)).not.toContain(ACCESS_TOKEN)
    expect(p.rehydrateMediaRef(JSON.parse(JSON.stringify(stored)), { type: 'image', token: undefined }).token).toEqual({
      id: '1037543291543636',
    })
    expect(() => p.rehydrateMediaRef({ v: 2, data: stored.data }, { type: 'image', token: undefined })).toThrow(
      expect.objectContaining({ code: 'MEDIA_REF_INVALID' }),
    )
  })

  it('refuses missing options when constructed', () => {
    expect(
      () => new MetaCloudProvider({ accessToken: '', phoneNumberId: '1', appSecret: 'a', verifyToken: 'v', webhook: { port: 0 } }),
    ).toThrow(ProviderConfigError)
    expect(
      () => new MetaCloudProvider({ accessToken: 't', phoneNumberId: '+1 555', appSecret: 'a', verifyToken: 'v', webhook: { port: 0 } }),
    ).toThrow(ProviderConfigError)
  })
})
