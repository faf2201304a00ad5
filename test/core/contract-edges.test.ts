/**
 * Edges of the seed's contract that a user relies on: a provider serializer that throws, enqueue of
 * content the outbox cannot journal, an operator replay of an answer a flow already took, unknown
 * options, and a split reply answered from the outbox.
 */
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { Bot } from '../../src/core/bot/bot.js'
import { ConfigError, PayloadNotJournaledError, SendDeferredError } from '../../src/core/errors/errors.js'
import { flow } from '../../src/core/bot/flow.js'
import { IMAGE, TEXT, text } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import { MediaUnavailableError } from '../../src/core/provider/provider-errors.js'
import type { MediaRef } from '../../src/core/provider/provider.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, textOf, useBots } from './helpers.js'

const bots = useBots()

describe('a provider whose serializeMediaRef throws', () => {
  it('journals the message without a reference, warns, and runs the handler; a replay reports not-durable', async () => {
    const provider = new MockProvider()
    provider.media.set('img-1', Buffer.from('png'))
    provider.serializeMediaRef = () => {
      throw new Error('cannot serialize this message')
    }
    const seen: { media: Buffer | undefined; error: unknown }[] = []
    const t = await bots.start({
      provider,
      durability: fast(),
      setup: (bot) =>
        bot.when(IMAGE, async (ctx) => {
          const error = await loadMediaOf(ctx, { throwOnError: true }).then(
            () => undefined,
            (e: unknown) => e,
          )
          seen.push({ media: await loadMediaOf(ctx), error })
          await ctx.reply('got it')
        }),
    })
    const media: MediaRef = { type: 'image', token: 'img-1' }
    await t.provider.receive({ id: 'm1', chatId: 'c1', media })
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('m1', 'c1')))?.state === 'done')
    expect(seen[0]).toEqual({ media: Buffer.from('png'), error: undefined })
    expect(t.warnings.some((w) => w.includes('serializeMediaRef threw'))).toBe(true)
    expect((await t.bot.durability!.inbox.get(recordId('m1', 'c1')))!.event).toMatchObject({ media: { type: 'image', stored: null } })

    await t.bot.durability!.replayInbound(recordId('m1', 'c1'))
    await waitFor(() => seen.length === 2)
    expect(seen[1]!.media).toBeUndefined()
    expect(seen[1]!.error).toBeInstanceOf(MediaUnavailableError)
    expect((seen[1]!.error as MediaUnavailableError).reason).toBe('not-durable')
  })
})

describe('bot.enqueue of content the outbox cannot journal', () => {
  it('is refused with PayloadNotJournaledError naming the limit; nothing is sent, and a second enqueue of the key sends nothing either', async () => {
    const t = await bots.start({ durability: fast({ outbox: { maxPayloadBytes: 1024 } }) })
    const big = { media: { type: 'document' as const, buffer: Buffer.alloc(4096, 1), fileName: 'big.bin' } }
    for (let n = 0; n < 2; n++) {
      const refused = await t.bot.enqueue('c1', big, { idempotencyKey: 'report:1' }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(PayloadNotJournaledError)
      expect((refused as PayloadNotJournaledError).code).toBe('PAYLOAD_NOT_JOURNALED')
      expect((refused as Error).message).toMatch(/outbox\.maxPayloadBytes \(1024\)/)
      expect((refused as Error).message).toMatch(/url or path/)
    }
    await t.bot.idle()
    expect(t.provider.sent).toEqual([])
    expect(await t.bot.durability!.outbox.get('report:1')).toBeUndefined()
  })

  it('a stream is refused the same way', async () => {
    const t = await bots.start({ durability: fast() })
    const stream = Readable.from(['bytes'])
    const refused = await t.bot.enqueue('c1', { media: { type: 'document', buffer: stream as never } }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(PayloadNotJournaledError)
    await t.bot.idle()
    expect(t.provider.sent).toEqual([])
  })
})

describe('an operator replay of a message that answered an earlier flow step', () => {
  it('feeds nothing: the flow keeps waiting for the answer to the question asked now, and the record says why', async () => {
    const t = await bots.start({
      store: new MemoryStore(),
      durability: fast(),
      setup: (bot) =>
        bot.when(
          text(/^signup$/),
          flow('signup')
            .ask('Your name?', async (ctx, answer) => {
              await ctx.state.set('name', answer.text ?? '')
            })
            .ask('Your surname?', async (ctx, answer) => {
              await ctx.state.set('surname', answer.text ?? '')
            })
            .ask('Your email?', async (ctx, answer) => {
              await ctx.reply(`Thanks ${String(await ctx.state.get('name'))} ${String(await ctx.state.get('surname'))} <${answer.text}>`)
            })
            .persistent(),
        ),
    })
    const record = (eventId: string) => t.bot.durability!.inbox.get(recordId(eventId, 'c1'))
    const handled = (eventId: string) => waitFor(async () => (await record(eventId))?.state === 'done')
    await t.provider.receive({ id: 's', chatId: 'c1', text: 'signup' })
    await handled('s')
    await t.provider.receive({ id: 'n', chatId: 'c1', text: 'Ann' })
    await handled('n')
    await t.provider.receive({ id: 'l', chatId: 'c1', text: 'Lee' })
    await handled('l')
    // The flow now waits for the email; the answer to the name and the message that started it are replayed.
    await t.bot.durability!.replayInbound(recordId('n', 'c1'))
    await t.bot.durability!.replayInbound(recordId('s', 'c1'))
    await waitFor(async () => (await record('s'))?.state === 'done' && (await record('n'))?.state === 'done')
    expect((await record('n'))!.note).toMatch(/already answered question 1 of flow "signup"/)
    expect((await record('s'))!.note).toMatch(/already started flow "signup"/)
    await t.provider.receive({ id: 'e', chatId: 'c1', text: 'ann@example.com' })
    await handled('e')
    expect(t.provider.texts()).toEqual(['Your name?', 'Your surname?', 'Your email?', 'Thanks Ann Lee <ann@example.com>'])
  })
})

describe('unknown or misplaced options', () => {
  const provider = () => new MockProvider()
  const refused = (config: object) => {
    try {
      new Bot({ provider: provider(), ...config } as never)
    } catch (error) {
      return error
    }
    return undefined
  }

  it('are refused with ConfigError naming the option', () => {
    const cases: [object, RegExp][] = [
      [
        { durability: { coordination: { turnLeaseM: '5s' } } },
        /durability\.coordination: unknown option "turnLeaseM" \(did you mean turnLeaseMs\?\)/,
      ],
      [{ durability: { coordination: 'yes' } }, /durability\.coordination must be true, false or/],
      [{ durability: { providerSession: 'leaders' } }, /durability\.providerSession must be 'any' or 'leader'/],
      [{ durability: { turnLeaseMs: 100 } }, /durability: unknown option "turnLeaseMs" \(it belongs under coordination\)/],
      [{ durability: { outbox: { retry: 3 } } }, /durability\.outbox: unknown option "retry" \(did you mean retries\?\)/],
      [
        { durability: { inbox: { backoff: { base: 10 } } } },
        /durability\.inbox\.backoff: unknown option "base" \(did you mean baseMs\?\); it takes baseMs, capMs, jitter/,
      ],
      [{ durability: { leaseMs: 100 } }, /durability: unknown option "leaseMs" \(it belongs under inbox or outbox\)/],
      [{ durablity: {} }, /BotConfig: unknown option "durablity" \(did you mean durability\?\)/],
    ]
    for (const [config, message] of cases) {
      const error = refused(config)
      expect(error, JSON.stringify(config)).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toMatch(message)
    }
    expect(refused({ durability: { inbox: { maxAttempts: 3 }, outbox: { retries: 2 } }, botId: 'b' })).toBeUndefined()
  })
})

describe('a split reply', () => {
  const longText = `${'a'.repeat(30)} ${'b'.repeat(30)} ${'c'.repeat(30)}`

  it('answered from the outbox returns every part’s message id', async () => {
    const t = await bots.start({
      provider: new MockProvider({ textLimit: 40 }),
      durability: fast(),
      setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply(longText).then(() => undefined)),
    })
    const first = await t.bot.send('c1', longText, { idempotencyKey: 'long:1' })
    expect(first.messageIds).toHaveLength(3)
    const again = await t.bot.send('c1', longText, { idempotencyKey: 'long:1' })
    expect(again.deduped).toBe(true)
    expect(again.messageIds).toEqual(first.messageIds)
    expect(t.provider.sent).toHaveLength(3)
  })

  it('a later part left to the sweeper rejects with SendDeferredError naming the caller’s key, counted in outboxDeferred', async () => {
    const provider = new MockProvider({ textLimit: 40 })
    const t = await bots.start({ provider, durability: fast({ outbox: { inlineMaxMs: 0 } }) })
    // The second part fails once; with no time to retry inline, it is deferred.
    provider.failNext(1, undefined, (_chat, content) => textOf(content).startsWith('b'))
    const deferred = await t.bot.send('c1', longText, { idempotencyKey: 'long:2' }).catch((e: unknown) => e)
    expect(deferred).toBeInstanceOf(SendDeferredError)
    expect((deferred as SendDeferredError).key).toBe('long:2')
    expect(t.bot.durability!.metrics().outboxDeferred).toBe(1)
    // The sweeper delivers the rest once the failed part's retry is due (idle() only means "nothing due now").
    await waitFor(() => provider.texts().length === 3, { message: 'the three parts delivered' })
    expect(provider.texts()).toHaveLength(3)
  })
})
