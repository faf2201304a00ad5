/**
 * The seed's splitting of a text over the channel's limit into `key`, `key#2`… (previousPart on each
 * record, a part never overtakes, waiting is not an attempt, dies with its predecessor, your own
 * `#2` keys stay independent, the sweeper splits an over-limit journaled record idempotently), and
 * the payload rules (maxPayloadBytes and unencodable content bypass with a warning).
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it, vi } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { OutboxRecord } from '../../src/core/durability/journal/records.js'
import { SendDeferredError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { UnsupportedContentError } from '../../src/core/provider/provider-errors.js'
import { crashable } from '../../src/testing/crashable.js'
import { CrashableProvider } from '../../src/testing/crashable-provider.js'
import { ManualClock } from '../../src/testing/manual-clock.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, sweeps, tally, useBots } from './helpers.js'

const bots = useBots()
const LONG = 'aaaa bbbb cccc dddd eeee'
const PARTS = ['aaaa bbbb ', 'cccc dddd ', 'eeee']
const limited = () => new MockProvider({ textLimit: 10 })

async function outboxRecords(t: {
  bot: { durability?: { outbox: { list(q?: object): Promise<OutboxRecord[]> } } }
}): Promise<OutboxRecord[]> {
  return (await t.bot.durability!.outbox.list({ limit: 1000 })).sort((a, b) => a.key.localeCompare(b.key))
}

describe('Splitting over the channel’s limit', () => {
  it('a text over the channel’s limit is split after the hooks ran, into one record per part (key, key#2, …, delivered in that order)', async () => {
    const t = await bots.start({
      provider: limited(),
      durability: fast(),
      setup: (bot) => bot.before('send', (send) => ({ ...send, content: `${send.content as string} eeee` })),
    })
    const result = await t.bot.send('c1', 'aaaa bbbb cccc dddd', { idempotencyKey: 'k' })
    expect(t.provider.texts()).toEqual(PARTS)
    expect(result).toMatchObject({
      key: 'k',
      deduped: false,
      messageIds: t.provider.sent.map((s) => s.messageId),
      messageId: t.provider.sent[0]!.messageId,
    })
    const records = await outboxRecords(t)
    expect(records.map((r) => [r.key, r.state, r.previousPart, r.payload])).toEqual([
      ['k', 'sent', null, PARTS[0]],
      ['k#2', 'sent', 'k', PARTS[1]],
      ['k#3', 'sent', 'k#2', PARTS[2]],
    ])
    expect(t.bot.durability!.metrics().outboxJournaled).toBe(3)
  })

  it('`{ text }` content is split too; media content stays whole', async () => {
    const t = await bots.start({ provider: limited(), durability: fast() })
    await t.bot.send('c1', { text: LONG }, { idempotencyKey: 'k' })
    await t.bot.send('c1', { text: LONG, media: { type: 'image', url: 'https://example.com/a.png' } }, { idempotencyKey: 'm' })
    expect(t.provider.sent.map((s) => s.content)).toEqual([
      ...PARTS.map((text) => ({ text })),
      { text: LONG, media: { type: 'image', url: 'https://example.com/a.png' } },
    ])
  })

  it('a part never overtakes an earlier one: while key waits for a retry, key#2 waits behind it; waiting is not an attempt', async () => {
    const provider = limited()
    provider.failNext(2, undefined, (_chat, content) => content === PARTS[0])
    const t = await bots.start({
      provider,
      durability: fast({ outbox: { inlineMaxMs: 5, backoff: { baseMs: 40, capMs: 40, jitter: 0 } } }),
    })
    const rejected = await t.bot.send('c1', LONG, { idempotencyKey: 'k' }).catch((e: unknown) => e)
    expect(rejected).toBeInstanceOf(SendDeferredError)
    await waitFor(() => provider.sent.length === 3)
    expect(provider.texts()).toEqual(PARTS)
    // key#2 was held back while key waited (journaled 'outbox.defer'), without being charged for it.
    expect(t.tap!.written<OutboxRecord>('outbox.defer').some((r) => r.key === 'k#2')).toBe(true)
    const records = await outboxRecords(t)
    expect(records.map((r) => [r.key, r.state, r.attempts])).toEqual([
      ['k', 'sent', 3],
      ['k#2', 'sent', 1],
      ['k#3', 'sent', 1],
    ])
  })

  it('waiting behind an earlier part does not count as an attempt, so a part keeps its whole `outbox.retries` budget for its own failures', async () => {
    const provider = limited()
    provider.failNext(2, undefined, (_chat, content) => content === PARTS[0])
    provider.failNext(2, undefined, (_chat, content) => content === PARTS[1])
    const t = await bots.start({
      provider,
      durability: fast({ outbox: { retries: 2, inlineMaxMs: 5, backoff: { baseMs: 30, capMs: 30, jitter: 0 } } }),
    })
    await t.bot.send('c1', LONG, { idempotencyKey: 'k' }).catch(() => undefined)
    await waitFor(() => provider.sent.length === 3)
    expect(provider.texts()).toEqual(PARTS)
    expect((await outboxRecords(t)).map((r) => [r.key, r.state, r.attempts])).toEqual([
      ['k', 'sent', 3],
      ['k#2', 'sent', 3],
      ['k#3', 'sent', 1],
    ])
    expect(t.dead).toEqual([])
  })

  it('a part dies with its predecessor if key is dead-lettered', async () => {
    const provider = limited()
    provider.failNext(1, new UnsupportedContentError(), (_chat, content) => content === PARTS[0])
    const t = await bots.start({ provider, durability: fast() })
    await t.bot.send('c1', LONG, { idempotencyKey: 'k' }).catch(() => undefined)
    await waitFor(() => t.dead.length === 3)
    await sweeps(t, 2)
    expect(provider.sent).toEqual([])
    const records = await outboxRecords(t)
    expect(records.map((r) => [r.key, r.state, r.lastError?.code])).toEqual([
      ['k', 'dead', 'UNSUPPORTED_CONTENT'],
      ['k#2', 'dead', 'PREVIOUS_PART_DEAD'],
      ['k#3', 'dead', 'PREVIOUS_PART_DEAD'],
    ])
    expect(records.map((r) => r.attempts)).toEqual([1, 0, 0])
  })

  it('your own idempotency keys may end in #2, #3… and stay independent sends', async () => {
    const provider = new MockProvider()
    provider.failNext(1, new UnsupportedContentError(), (_chat, content) => content === 'invoice')
    const t = await bots.start({ provider, durability: fast() })
    await t.bot.send('c1', 'invoice', { idempotencyKey: 'order' }).catch(() => undefined)
    await t.bot.send('c1', 'receipt', { idempotencyKey: 'order#2' })
    await t.bot.enqueue('c1', 'survey', { idempotencyKey: 'order#3' })
    await waitFor(() => provider.sent.length === 2)
    expect(provider.texts()).toEqual(['receipt', 'survey'])
    const records = await outboxRecords(t)
    expect(records.map((r) => [r.key, r.state, r.previousPart])).toEqual([
      ['order', 'dead', null],
      ['order#2', 'sent', null],
      ['order#3', 'sent', null],
    ])
  })
})

describe('The sweeper splits an over-limit journaled record', () => {
  it('the same way: the first part goes out under the record’s key and the others are journaled as key#2, key#3… before it is sent', async () => {
    const t = await bots.start({ provider: limited(), durability: fast() })
    await t.bot.enqueue('c1', LONG, { idempotencyKey: 'k' })
    await waitFor(() => t.provider.sent.length === 3)
    expect(t.provider.texts()).toEqual(PARTS)
    const names = t.tap!.writes.map((w) => w.name)
    expect(names.indexOf('outbox.split')).toBeGreaterThan(-1)
    expect(names.indexOf('outbox.split')).toBeLessThan(names.indexOf('outbox.markSent'))
    expect(t.tap!.written<OutboxRecord>('outbox.split').map((r) => [r.key, r.previousPart, r.payload])).toEqual([
      ['k#2', 'k', PARTS[1]],
      ['k#3', 'k#2', PARTS[2]],
      ['k', null, PARTS[0]],
    ])
    await waitFor(async () => (await outboxRecords(t)).every((r) => r.state === 'sent'))

    // The part keys only depend on the record key, the text and the channel limit: an inline send splits alike.
    const inline = await bots.start({ provider: limited(), durability: fast() })
    await inline.bot.send('c1', LONG, { idempotencyKey: 'k' })
    expect((await outboxRecords(inline)).map((r) => [r.key, r.previousPart, r.payload])).toEqual(
      (await outboxRecords(t)).map((r) => [r.key, r.previousPart, r.payload]),
    )
  })

  it('a record written by an older version (or under a larger limit) is split before it is sent', async () => {
    // The retry comes due only when the test moves the clock: the old bot stops with the record failed
    // (a retry it ran first would send it whole, however briefly the 'failed' state lasted).
    const clock = new ManualClock()
    const backend = new MemoryDurability({ now: clock.now })
    const old = await bots.start({
      provider: new MockProvider({ textLimit: 100 }),
      durability: fast({ backend, clock: clock.now, instanceId: 'i1' }),
    })
    old.provider.failNext(1)
    await old.bot.enqueue('c1', LONG, { idempotencyKey: 'k' })
    await waitFor(async () => (await old.bot.durability!.outbox.get('k'))?.state === 'failed')
    await old.bot.stop()
    const t = await bots.start({ provider: limited(), durability: fast({ backend, clock: clock.now, instanceId: 'i1' }) })
    clock.advance(1_000)
    await waitFor(() => t.provider.sent.length === 3)
    expect(t.provider.texts()).toEqual(PARTS)
    expect((await outboxRecords(t)).map((r) => [r.key, r.state, r.previousPart])).toEqual([
      ['k', 'sent', null],
      ['k#2', 'sent', 'k'],
      ['k#3', 'sent', 'k#2'],
    ])
  })

  it('… idempotently: a retry or a second pass after a crash journals and sends nothing twice', async () => {
    for (const [when, point] of [
      ['after', 'outbox.split'],
      ['before', 'outbox.split'],
      ['after', 'outbox.claim'],
    ] as const) {
      const shared = new MemoryDurability()
      const a = crashable(shared)
      if (when === 'after') a.crashAfter(point)
      else a.crashBefore(point)
      const first = await bots.start({
        provider: new CrashableProvider(a, { textLimit: 10 }),
        durability: fast({ backend: a, instanceId: 'i1', outbox: { onAmbiguous: 'resend' } }),
      })
      void first.bot.enqueue('c1', LONG, { idempotencyKey: 'k' })
      await a.whenCrashed()
      bots.abandon(first)
      const second = await bots.start({
        provider: limited(),
        durability: fast({ backend: shared, instanceId: 'i1', outbox: { onAmbiguous: 'resend' } }),
      })
      await waitFor(async () => (await outboxRecords(second)).filter((r) => r.state === 'sent').length === 3, {
        message: `3 parts sent (crash ${when} ${point})`,
      })
      expect(Object.fromEntries(tally(first.provider, second.provider)), `crash ${when} ${point}`).toEqual({
        [PARTS[0]!]: 1,
        [PARTS[1]!]: 1,
        [PARTS[2]!]: 1,
      })
      expect(second.provider.texts().join(''), `crash ${when} ${point}`).toBe(
        first.provider.texts().length ? PARTS.slice(1).join('') : LONG,
      )
      expect((await outboxRecords(second)).map((r) => r.key)).toEqual(['k', 'k#2', 'k#3'])
    }
  })

  it('the part keys are the same on every replay: a replayed handler’s split reply is answered from the outbox', async () => {
    const t = await bots.start({ provider: limited(), durability: fast(), setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply(LONG)) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    await t.bot.durability!.replayInbound(recordId('m1'))
    await waitFor(
      async () =>
        t.bot.durability!.metrics().inboundReplayed === 1 && (await t.bot.durability!.inbox.get(recordId('m1')))!.state === 'done',
    )
    await t.bot.idle()
    expect(t.provider.texts()).toEqual(PARTS)
    expect((await outboxRecords(t)).map((r) => r.key)).toEqual([`${recordId('m1')}:1`, `${recordId('m1')}:1#2`, `${recordId('m1')}:1#3`])
  })
})

describe('Payload size', () => {
  it('a payload over `outbox.maxPayloadBytes` bypasses the outbox, with a warning (`outboxBypassed`)', async () => {
    const afterSend: (string | null)[] = []
    const t = await bots.start({
      durability: fast({ outbox: { maxPayloadBytes: 200 } }),
      setup: (bot) => bot.after('send', (s) => void afterSend.push(s.key)),
    })
    const big = { media: { type: 'document' as const, buffer: Buffer.alloc(300, 7), fileName: 'a.bin' } }
    const result = await t.bot.send('c1', big, { idempotencyKey: 'big' })
    expect(result).toMatchObject({ key: 'big', deduped: false })
    expect(t.provider.sent).toHaveLength(1)
    // (MockProvider keeps a structuredClone of what it accepted: the Buffer comes back as bytes.)
    expect((t.provider.sent[0]!.content as typeof big).media.buffer).toHaveLength(300)
    expect(await t.bot.durability!.outbox.list()).toEqual([])
    expect(t.bot.durability!.metrics()).toMatchObject({ outboxBypassed: 1, outboxJournaled: 0 })
    expect(t.warnings.join('\n')).toMatch(/"big" bypasses the outbox \(too-large/)
    expect(afterSend).toEqual([null])
    // Buffers under the limit are journaled as base64.
    await t.bot.send('c1', { media: { type: 'document', buffer: Buffer.from('hi') } }, { idempotencyKey: 'small' })
    expect((await t.bot.durability!.outbox.get('small'))!.payload).toEqual({
      media: { type: 'document', buffer: { $base64: Buffer.from('hi').toString('base64') } },
    })
    expect(Buffer.from((t.provider.sent[1]!.content as { media: { buffer: Uint8Array } }).media.buffer).toString()).toBe('hi')
  })

  it('a payload that cannot be encoded (a stream) bypasses the outbox, with a warning', async () => {
    const t = await bots.start({ durability: fast() })
    // MockProvider clones what it accepts, and a stream cannot be cloned: record the call instead.
    const send = vi.spyOn(t.provider, 'send').mockResolvedValue({ messageId: 'streamed-1' })
    const stream = new PassThrough()
    const result = await t.bot.send('c1', { media: { type: 'video', buffer: stream as never } }, { idempotencyKey: 'stream' })
    expect(result).toMatchObject({ key: 'stream', messageId: 'streamed-1' })
    expect(send).toHaveBeenCalledTimes(1)
    expect((send.mock.calls[0]![1] as { media: { buffer: unknown } }).media.buffer).toBe(stream)
    expect(await t.bot.durability!.outbox.list()).toEqual([])
    expect(t.bot.durability!.metrics().outboxBypassed).toBe(1)
    expect(t.warnings.join('\n')).toMatch(/"stream" bypasses the outbox \(unencodable/)
  })
})
