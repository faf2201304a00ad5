/**
 * The seed's "Retries, deferral and the dead-letter queue": final errors straight to the DLQ,
 * backoff with jitter, RateLimitedError.retryAfterMs, inline retries up to inlineMaxMs then
 * SendDeferredError (the sweeper finishing the send), enqueue, and per-chat order.
 */
import { describe, expect, it } from 'vitest'
import type { OutboxRecord } from '../../src/core/durability/journal/records.js'
import { SendDeadError, SendDeferredError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import {
  OutsideSessionWindowError,
  PayloadTooLargeError,
  ProviderError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, holdSends, recordId, sweeps, useBots } from './helpers.js'

const bots = useBots()

describe('Final errors go straight to the DLQ', () => {
  it.each([
    ['UnsupportedContentError', () => new UnsupportedContentError()],
    ['PayloadTooLargeError', () => new PayloadTooLargeError()],
    ['OutsideSessionWindowError', () => new OutsideSessionWindowError()],
    ['RecipientUnreachableError', () => new RecipientUnreachableError()],
    ['any error with retryable: false', () => Object.assign(new Error('the channel said no'), { retryable: false })],
  ])('%s', async (_name, makeError) => {
    const t = await bots.start({ durability: fast() })
    const error = makeError()
    t.provider.failNext(1, error)
    const rejected = await t.bot.send('c1', 'Hello', { idempotencyKey: 'k1' }).catch((e: unknown) => e)
    expect(rejected).toBeInstanceOf(SendDeadError)
    expect(rejected).toMatchObject({ code: 'SEND_DEAD', key: 'k1', cause: error })
    expect(await t.bot.durability!.outbox.get('k1')).toMatchObject({ state: 'dead', attempts: 1, lastError: { message: error.message } })
    expect(t.dead).toEqual([{ kind: 'outbox', id: 'k1', error: expect.objectContaining({ message: error.message }) }])
    await sweeps(t, 2)
    expect(t.provider.sent).toEqual([])
    expect(t.bot.durability!.metrics()).toMatchObject({ outboxDead: 1, outboxRetried: 0 })
    expect((await t.bot.durability!.outbox.list({ state: 'dead' })).map((r) => r.key)).toEqual(['k1'])
  })
})

describe('A failed send is retried with backoff', () => {
  it('retried with backoff (exponential from baseMs) until it goes out', async () => {
    const t = await bots.start({ durability: fast({ outbox: { backoff: { baseMs: 8, capMs: 100, jitter: 0 } } }) })
    t.provider.failNext(3)
    const result = await t.bot.send('c1', 'Hello', { idempotencyKey: 'k1' })
    expect(result.deduped).toBe(false)
    expect(t.provider.texts()).toEqual(['Hello'])
    const failed = t.tap!.written<OutboxRecord>('outbox.markFailed')
    expect(failed.map((r) => r.attempts)).toEqual([1, 2, 3])
    expect(failed.map((r) => r.nextAttemptAt! - r.updatedAt)).toEqual([8, 16, 32])
    expect(await t.bot.durability!.outbox.get('k1')).toMatchObject({ state: 'sent', attempts: 4, lastError: null })
    expect(t.bot.durability!.metrics()).toMatchObject({ outboxRetried: 3, outboxDead: 0 })
  })

  it('backoff with jitter: the waits spread around the exponential value', async () => {
    // Twelve inline retries: an inline budget of a minute, so a busy host's slow timers cannot defer the send.
    const t = await bots.start({
      durability: fast({ outbox: { retries: 20, inlineMaxMs: '60s', backoff: { baseMs: 20, capMs: 20, jitter: 0.5 } } }),
    })
    t.provider.failNext(12)
    await t.bot.send('c1', 'Hello', { idempotencyKey: 'k1' })
    const waits = t.tap!.written<OutboxRecord>('outbox.markFailed').map((r) => r.nextAttemptAt! - r.updatedAt)
    expect(waits).toHaveLength(12)
    for (const wait of waits) (expect(wait).toBeGreaterThanOrEqual(10), expect(wait).toBeLessThanOrEqual(30))
    expect(new Set(waits).size).toBeGreaterThan(1)
  })

  it('a `RateLimitedError` waits at least its `retryAfterMs`', async () => {
    const t = await bots.start({ durability: fast() })
    t.provider.rateLimitNext(1, 120)
    await t.bot.send('c1', 'Hello', { idempotencyKey: 'k1' })
    const [failed] = t.tap!.written<OutboxRecord>('outbox.markFailed')
    expect(failed!.lastError).toMatchObject({ code: 'RATE_LIMITED' })
    expect(failed!.nextAttemptAt! - failed!.updatedAt).toBe(120)
    expect(t.provider.texts()).toEqual(['Hello'])
  })

  it('dead-lettered when it runs out of retries (`outbox.retries` retries after the first attempt)', async () => {
    const t = await bots.start({ durability: fast({ outbox: { retries: 2 } }) })
    let calls = 0
    t.provider.failNext(10, new ProviderError('DOWN', 'down'), () => (calls++, true))
    const rejected = await t.bot.send('c1', 'Hello', { idempotencyKey: 'k1' }).catch((e: unknown) => e)
    expect(rejected).toBeInstanceOf(SendDeadError)
    expect(calls).toBe(3)
    expect(await t.bot.durability!.outbox.get('k1')).toMatchObject({ state: 'dead', attempts: 3, lastError: { code: 'DOWN' } })
    expect(t.dead.map((d) => d.id)).toEqual(['k1'])
  })
})

describe('Inline retries and deferral', () => {
  it('`ctx.reply` and `bot.send` retry inline for up to `outbox.inlineMaxMs`, then reject with `SendDeferredError` carrying the outbox key; the sweeper finishes it', async () => {
    const store = new MemoryStore()
    const afterSend: string[] = []
    const t = await bots.start({
      store,
      durability: fast({ outbox: { inlineMaxMs: 30, backoff: { baseMs: 50, capMs: 50, jitter: 0 } } }),
      setup: (bot) => bot.after('send', (sent) => void afterSend.push(sent.key!)),
    })
    t.provider.failNext(2)
    const rejected = await t.bot.send('c1', 'Hello', { idempotencyKey: 'k1' }).catch((e: unknown) => e)
    expect(rejected).toBeInstanceOf(SendDeferredError)
    expect(rejected).toMatchObject({ code: 'SEND_DEFERRED', key: 'k1', retryable: true })
    expect(t.bot.durability!.metrics().outboxDeferred).toBe(1)
    expect(t.provider.sent).toEqual([])
    // The send is not lost: the background sweeper keeps retrying it.
    await waitFor(async () => (await t.bot.durability!.outbox.get('k1'))?.state === 'sent')
    expect(t.provider.texts()).toEqual(['Hello'])
    expect(afterSend).toEqual(['k1'])
    expect(await store.listLog(t.bot.scope, 'c1', 10)).toEqual([
      expect.objectContaining({ direction: 'out', text: 'Hello', ref: 'k1', messageId: t.provider.sent[0]!.messageId }),
    ])
  })

  it('a handler whose reply is deferred is still acknowledged; the reply goes out from the sweeper', async () => {
    let caught: unknown
    const t = await bots.start({
      durability: fast({ outbox: { inlineMaxMs: 10, backoff: { baseMs: 40, capMs: 40, jitter: 0 } } }),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          try {
            await ctx.reply('answer')
          } catch (error) {
            caught = error
          }
        }),
    })
    t.provider.failNext(1)
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1')))?.state === 'done')
    expect(caught).toBeInstanceOf(SendDeferredError)
    expect((caught as SendDeferredError).key).toBe(`${recordId('m1')}:1`)
    await waitFor(() => t.provider.texts().includes('answer'))
  })
})

describe('Enqueue', () => {
  it("`bot.enqueue` runs the before('send') hooks once, journals the send and returns at once; the sweeper delivers it, then runs after('send') and writes the message log", async () => {
    const store = new MemoryStore()
    const calls: string[] = []
    const provider = new MockProvider()
    const gate = holdSends(provider)
    const t = await bots.start({
      provider,
      store,
      durability: fast(),
      setup: (bot) => {
        bot.before('send', (send) => {
          calls.push(`before ${send.key}`)
          return { ...send, content: `${send.content as string}!` }
        })
        bot.after('send', (sent) => void calls.push(`after ${sent.key} ${sent.messageId}`))
      },
    })
    const { key } = await t.bot.enqueue('c1', 'Your appointment is tomorrow at 9', { idempotencyKey: 'reminder:7' })
    expect(key).toBe('reminder:7')
    expect(calls).toEqual(['before reminder:7'])
    expect((await t.bot.durability!.outbox.get(key))!.payload).toBe('Your appointment is tomorrow at 9!')
    await gate.reached()
    expect(provider.sent).toEqual([])
    gate.release()
    await waitFor(() => calls.length === 2)
    expect(calls).toEqual(['before reminder:7', `after reminder:7 ${provider.sent[0]!.messageId}`])
    expect(provider.texts()).toEqual(['Your appointment is tomorrow at 9!'])
    expect(await store.listLog(t.bot.scope, 'c1', 10)).toEqual([
      expect.objectContaining({ direction: 'out', ref: 'reminder:7', text: 'Your appointment is tomorrow at 9!' }),
    ])
  })

  it('a second enqueue of this key is a no-op', async () => {
    const t = await bots.start({ durability: fast() })
    await t.bot.enqueue('c1', 'Reminder', { idempotencyKey: 'reminder:1' })
    await t.bot.enqueue('c1', 'Reminder', { idempotencyKey: 'reminder:1' })
    await waitFor(() => t.provider.sent.length === 1)
    await t.bot.idle()
    await t.bot.enqueue('c1', 'Reminder', { idempotencyKey: 'reminder:1' })
    await t.bot.idle()
    expect(t.provider.texts()).toEqual(['Reminder'])
    expect(t.bot.durability!.metrics()).toMatchObject({ outboxJournaled: 1, outboxDeduped: 2 })
  })

  it('an enqueued send that fails is retried by the sweeper', async () => {
    const t = await bots.start({ durability: fast() })
    t.provider.failNext(2)
    await t.bot.enqueue('c1', 'Reminder', { idempotencyKey: 'r1' })
    await waitFor(async () => (await t.bot.durability!.outbox.get('r1'))?.state === 'sent')
    expect(t.provider.texts()).toEqual(['Reminder'])
    expect(t.bot.durability!.metrics().outboxRetried).toBe(2)
  })
})

describe('Order', () => {
  it('within one process, sends to a chat keep their order while one of them is being retried inline (other chats go on)', async () => {
    const provider = new MockProvider()
    // "first" fails until the send to the other chat went out: it is retried inline meanwhile.
    provider.failNext(
      1000,
      new ProviderError('BUSY', 'busy'),
      (_chat, content) => content === 'first' && !provider.texts().includes('other chat'),
    )
    const t = await bots.start({ provider, durability: fast({ outbox: { retries: 1000 } }) })
    const first = t.bot.send('c1', 'first')
    const second = t.bot.send('c1', 'second')
    const other = t.bot.send('c2', 'other chat')
    await Promise.all([first, second, other])
    expect(provider.texts('c1')).toEqual(['first', 'second'])
    expect(provider.texts()).toEqual(['other chat', 'first', 'second'])
    expect(t.bot.durability!.metrics().outboxRetried).toBeGreaterThan(0)
  })

  it('a standby replica of a leader-only session never calls the transport; the attempt is refused and retried without using up a retry', async () => {
    const provider = new MockProvider({ session: 'leader' })
    provider.leader = false
    const t = await bots.start({ provider, durability: fast({ outbox: { retries: 1 } }) })
    await t.bot.enqueue('c1', 'from the leader', { idempotencyKey: 'k1' })
    await sweeps(t, 4)
    expect(provider.sent).toEqual([])
    expect(await t.bot.durability!.outbox.get('k1')).toMatchObject({
      state: 'failed',
      attempts: 0,
      lastError: { code: 'PROVIDER_NOT_LEADER' },
    })
    provider.leader = true
    await waitFor(async () => (await t.bot.durability!.outbox.get('k1'))?.state === 'sent')
    expect(provider.texts()).toEqual(['from the leader'])
  })
})
