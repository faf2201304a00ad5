/**
 * The seed's "What is guaranteed" table, row by row. Each test crashes a bot at a journal write
 * (crashable + CrashableProvider over a MemoryDurability, with a shared MemoryStore), then starts a
 * new bot with the same instanceId on the unwrapped backend, redelivers the messages the channel
 * never saw acknowledged, and checks what the table promises against the providers' own logs.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityOptions } from '../../src/core/durability/config.js'
import type { CrashPoint } from '../../src/core/durability/journal/crash-points.js'
import { flow } from '../../src/core/bot/flow.js'
import { TEXT, text } from '../../src/core/bot/matchers.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable, type CrashableBackend } from '../../src/testing/crashable.js'
import { CrashableProvider } from '../../src/testing/crashable-provider.js'
import { never, waitFor } from '../../test-utils/wait.js'
import { fast, recordId, tally, useBots, type TestBot } from './helpers.js'

const bots = useBots()

/** One crash and one restart, sharing a backend and a store. */
class Scenario {
  readonly shared = new MemoryDurability()
  readonly store = new MemoryStore()
  readonly a: CrashableBackend = crashable(this.shared)
  readonly events: InboundEvent[] = []
  readonly acked = new Set<string>()
  first!: TestBot
  second!: TestBot

  constructor(
    private readonly options: {
      setup: (bot: Bot) => void
      durability?: DurabilityOptions
      crash?: ['before' | 'after', CrashPoint, number?]
    },
  ) {
    const crash = options.crash
    if (crash?.[0] === 'before') this.a.crashBefore(crash[1], { nth: crash[2] ?? 1 })
    if (crash?.[0] === 'after') this.a.crashAfter(crash[1], { nth: crash[2] ?? 1 })
  }

  async start(): Promise<this> {
    this.first = await bots.start({
      provider: new CrashableProvider(this.a),
      store: this.store,
      durability: fast({ ...this.options.durability, backend: this.a, instanceId: 'i1' }),
      setup: this.options.setup,
    })
    void this.a.whenCrashed().then(() => bots.abandon(this.first))
    return this
  }

  /** Delivers an event to the first bot; resolves once it is acknowledged or the bot crashed. */
  async deliver(event: InboundEvent): Promise<void> {
    this.events.push(event)
    const acknowledged = this.first.provider.receive(event).then(() => void this.acked.add(event.id))
    await Promise.race([acknowledged, this.a.whenCrashed()])
  }

  /** The process dies now (wherever it is). */
  crashNow(): void {
    this.a.crashNow()
  }

  /** Waits for the crash, starts the second bot with the same instanceId, and redelivers what was never acknowledged. */
  async restart(): Promise<TestBot> {
    await this.a.whenCrashed()
    this.second = await bots.start({
      store: this.store,
      durability: fast({ ...this.options.durability, backend: this.shared, instanceId: 'i1' }),
      setup: this.options.setup,
    })
    for (const event of this.events.filter((e) => !this.acked.has(e.id))) await this.second.provider.receive(event)
    await this.settled()
    return this.second
  }

  /** Waits until every inbound record is settled and the second bot is idle. */
  async settled(): Promise<void> {
    const d = this.second.bot.durability!
    await waitFor(
      async () =>
        (await d.inbox.list({ state: 'processing' })).length +
          (await d.inbox.list({ state: 'failed' })).length +
          (await d.inbox.list({ state: 'pending' })).length ===
        0,
    )
    await this.second.bot.idle()
  }

  /** How many times each text went out, as the channel saw it. */
  tally(): Record<string, number> {
    return Object.fromEntries(tally(this.first.provider, this.second.provider))
  }
}

const echo = (bot: Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
const threeReplies = (bot: Bot) =>
  bot.when(TEXT, async (ctx) => {
    await ctx.reply('one')
    await ctx.reply('two')
    await ctx.reply('three')
  })

describe('What is guaranteed: the process dies…', () => {
  it('before the inbound is journaled: nothing was recorded; the message is processed if the channel redelivers it', async () => {
    const s = await new Scenario({ setup: echo, crash: ['before', 'inbox.admit'] }).start()
    await s.deliver({ id: 'm1', chatId: 'c1', text: 'hi' })
    await s.a.whenCrashed()
    expect(s.acked.has('m1')).toBe(false)
    expect(await s.shared.journal(s.first.bot.scope).count('inbox')).toEqual({})
    const second = await s.restart()
    expect(s.tally()).toEqual({ 'echo hi': 1 })
    expect(await second.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done' })
  })

  it('after it is journaled, before the handler runs: the message is replayed', async () => {
    const s = await new Scenario({ setup: echo, crash: ['after', 'inbox.admit'] }).start()
    await s.deliver({ id: 'm1', chatId: 'c1', text: 'hi' })
    await s.a.whenCrashed()
    expect(s.first.provider.sent).toEqual([])
    const second = await s.restart()
    expect(s.tally()).toEqual({ 'echo hi': 1 })
    expect(second.bot.durability!.metrics().inboundReplayed + second.bot.durability!.metrics().inboundDuplicates).toBeGreaterThanOrEqual(1)
    expect(await second.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done' })
  })

  it('after it is journaled, while the handler runs: the message is replayed; replies that already went out are answered from the outbox, the missing ones are sent', async () => {
    const s = await new Scenario({ setup: threeReplies, crash: ['after', 'outbox.markSent', 2] }).start()
    await s.deliver({ id: 'm1', chatId: 'c1', text: 'hi' })
    await s.a.whenCrashed()
    expect(s.first.provider.texts()).toEqual(['one', 'two'])
    const second = await s.restart()
    expect(second.provider.texts()).toEqual(['three'])
    expect(s.tally()).toEqual({ one: 1, two: 1, three: 1 })
    expect(second.bot.durability!.metrics()).toMatchObject({ inboundReplayed: 1, outboxDeduped: 2, outboxAmbiguous: 0 })
  })

  describe('between “about to call the provider” and “sent” being recorded: ambiguous', () => {
    it("`onAmbiguous: 'skip'` (default) marks the send `unknown`: never a duplicate, possibly lost; `'durability:ambiguous'` fires", async () => {
      const s = await new Scenario({ setup: threeReplies, crash: ['before', 'outbox.markSent'] }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'hi' })
      const second = await s.restart()
      expect(s.first.provider.texts()).toEqual(['one']) // the channel accepted it; the outbox never learned
      expect(s.tally()).toEqual({ one: 1, two: 1, three: 1 })
      expect(second.ambiguous).toEqual([{ key: `${recordId('m1')}:1`, chatId: 'c1' }])
      expect(await second.bot.durability!.outbox.get(`${recordId('m1')}:1`)).toMatchObject({ state: 'unknown', lease: null })
      expect(second.bot.durability!.metrics().outboxAmbiguous).toBe(1)
    })

    it("`onAmbiguous: 'skip'`: when the provider was never called, the send is lost (never a duplicate)", async () => {
      const s = await new Scenario({ setup: threeReplies, crash: ['after', 'outbox.journal'] }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'hi' })
      const second = await s.restart()
      expect(s.tally()).toEqual({ two: 1, three: 1 })
      expect(second.ambiguous).toEqual([{ key: `${recordId('m1')}:1`, chatId: 'c1' }])
      expect(await second.bot.durability!.outbox.get(`${recordId('m1')}:1`)).toMatchObject({ state: 'unknown' })
    })

    it("`'resend'` sends it again: never lost, possibly a duplicate; `'durability:ambiguous'` fires", async () => {
      const s = await new Scenario({
        setup: threeReplies,
        durability: { outbox: { onAmbiguous: 'resend' } },
        crash: ['before', 'outbox.markSent'],
      }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'hi' })
      const second = await s.restart()
      expect(s.tally()).toEqual({ one: 2, two: 1, three: 1 })
      expect(second.ambiguous).toEqual([{ key: `${recordId('m1')}:1`, chatId: 'c1' }])
      expect(await second.bot.durability!.outbox.get(`${recordId('m1')}:1`)).toMatchObject({ state: 'sent' })
      expect(second.bot.durability!.metrics().outboxAmbiguous).toBe(1)
    })

    it("`'resend'`: when the provider was never called, the send goes out once", async () => {
      const s = await new Scenario({
        setup: threeReplies,
        durability: { outbox: { onAmbiguous: 'resend' } },
        crash: ['after', 'outbox.journal'],
      }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'hi' })
      const second = await s.restart()
      expect(s.tally()).toEqual({ one: 1, two: 1, three: 1 })
      expect(second.ambiguous).toEqual([{ key: `${recordId('m1')}:1`, chatId: 'c1' }])
    })

    it('an enqueued send in the window is settled the same way (`skip`: unknown, `resend`: sent again)', async () => {
      for (const onAmbiguous of ['skip', 'resend'] as const) {
        const s = await new Scenario({
          setup: () => {},
          durability: { outbox: { onAmbiguous } },
          crash: ['before', 'outbox.markSent'],
        }).start()
        void s.first.bot.enqueue('c1', 'Reminder', { idempotencyKey: 'r1' })
        const second = await s.restart()
        await waitFor(() => second.ambiguous.length === 1)
        await second.bot.idle()
        expect(s.tally(), onAmbiguous).toEqual({ Reminder: onAmbiguous === 'skip' ? 1 : 2 })
        expect((await second.bot.durability!.outbox.get('r1'))!.state, onAmbiguous).toBe(onAmbiguous === 'skip' ? 'unknown' : 'sent')
      }
    })
  })

  it('after the send is recorded, before the inbound is acknowledged: the message is replayed; every reply is answered from the outbox', async () => {
    const s = await new Scenario({ setup: threeReplies, crash: ['before', 'inbox.complete'] }).start()
    await s.deliver({ id: 'm1', chatId: 'c1', text: 'hi' })
    const second = await s.restart()
    expect(second.provider.sent).toEqual([])
    expect(s.tally()).toEqual({ one: 1, two: 1, three: 1 })
    expect(second.bot.durability!.metrics()).toMatchObject({ inboundReplayed: 1, outboxDeduped: 3 })
    expect(await second.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', attempts: 2 })
  })

  describe('while a flow waits for an answer', () => {
    const signup = (persistent: boolean) => (bot: Bot) => {
      const f = flow('signup')
        .ask('Your name?', async (ctx, answer) => {
          await ctx.state.set('name', answer.text!)
        })
        .ask('Your email?', async (ctx) => {
          await ctx.reply(`Thanks ${await ctx.state.get('name')}`)
        })
      bot.when(text('signup'), persistent ? f.persistent() : f)
      bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
    }

    it('persistent: the flow resumes from its checkpoint; the pending question is not repeated and the next message is taken as its answer', async () => {
      const s = await new Scenario({ setup: signup(true) }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'signup' })
      await s.deliver({ id: 'm2', chatId: 'c1', text: 'Bob' })
      await s.first.bot.idle()
      expect(await s.store.getCheckpoint(s.first.bot.scope, 'c1')).toMatchObject({ flow: 'signup', step: 1 })
      s.crashNow()
      const second = await s.restart()
      await second.provider.receive({ id: 'm3', chatId: 'c1', text: 'b@x' })
      await s.settled()
      expect(second.provider.texts()).toEqual(['Thanks Bob'])
      expect(s.tally()).toEqual({ 'Your name?': 1, 'Your email?': 1, 'Thanks Bob': 1 })
    })

    it('persistent, crashing while the answer is handled: the step is replayed from its checkpoint, the next question is answered from the outbox, not repeated', async () => {
      // inbox.complete #1 is "signup", #2 is "Bob": the process dies after Bob's step asked the next question.
      const s = await new Scenario({ setup: signup(true), crash: ['before', 'inbox.complete', 2] }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'signup' })
      await s.deliver({ id: 'm2', chatId: 'c1', text: 'Bob' })
      const second = await s.restart()
      expect(second.provider.sent).toEqual([])
      await second.provider.receive({ id: 'm3', chatId: 'c1', text: 'b@x' })
      await s.settled()
      expect(second.provider.texts()).toEqual(['Thanks Bob'])
      expect(s.tally()).toEqual({ 'Your name?': 1, 'Your email?': 1, 'Thanks Bob': 1 })
      expect(second.bot.durability!.metrics().outboxDiverged).toBe(0)
    })

    it('not persistent: the conversation is gone; the next message goes through the normal routing as a new message, and its reply is sent', async () => {
      const s = await new Scenario({ setup: signup(false) }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'signup' })
      await s.deliver({ id: 'm2', chatId: 'c1', text: 'Bob' })
      await s.first.bot.idle()
      expect(await s.store.getCheckpoint(s.first.bot.scope, 'c1')).toBeUndefined()
      s.crashNow()
      const second = await s.restart()
      await second.provider.receive({ id: 'm3', chatId: 'c1', text: 'b@x' })
      await s.settled()
      expect(second.provider.texts()).toEqual(['echo b@x'])
    })

    it("not persistent, crashing while the answer is handled: the replayed answer goes through the normal routing as a new message, and its reply is sent (`onDiverged: 'send'`)", async () => {
      const s = await new Scenario({ setup: signup(false), crash: ['before', 'inbox.complete', 2] }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'signup' })
      await s.deliver({ id: 'm2', chatId: 'c1', text: 'Bob' })
      const second = await s.restart()
      expect(second.provider.texts()).toEqual(['echo Bob'])
      expect(s.tally()).toEqual({ 'Your name?': 1, 'Your email?': 1, 'echo Bob': 1 })
      expect(second.bot.durability!.metrics().outboxDiverged).toBe(1)
      expect(second.warnings.join('\n')).toContain(`different content under key "${recordId('m2')}:1"`)
    })

    it("not persistent, crashing while the answer is handled, with `onDiverged: 'skip'`: the replayed answer’s reply is answered from the recorded send", async () => {
      const s = await new Scenario({
        setup: signup(false),
        durability: { outbox: { onDiverged: 'skip' } },
        crash: ['before', 'inbox.complete', 2],
      }).start()
      await s.deliver({ id: 'm1', chatId: 'c1', text: 'signup' })
      await s.deliver({ id: 'm2', chatId: 'c1', text: 'Bob' })
      const second = await s.restart()
      expect(second.provider.sent).toEqual([])
      expect(s.tally()).toEqual({ 'Your name?': 1, 'Your email?': 1 })
      expect(second.bot.durability!.metrics().outboxDiverged).toBe(1)
    })
  })

  it("on every run of the same message (it crashes the process): replayed until `inbox.maxAttempts` runs were charged, then dead-lettered ('durability:dead') instead of crashing the next start again", async () => {
    const shared = new MemoryDurability()
    const store = new MemoryStore()
    let runs = 0
    const start = async (backend: CrashableBackend | MemoryDurability) => {
      const t = await bots.start({
        store,
        durability: fast({ backend, instanceId: 'i1', inbox: { maxAttempts: 3, leaseMs: '60s' } }),
        setup: (bot) =>
          bot.when(TEXT, async (ctx) => {
            if (ctx.message.text !== 'poison') return ctx.reply(`echo ${ctx.message.text}`)
            runs++
            ;(backend as CrashableBackend).crashNow()
            await never()
          }),
      })
      if ('crashNow' in backend) void backend.whenCrashed().then(() => bots.abandon(t))
      return t
    }
    const a = crashable(shared)
    const first = await start(a)
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'poison' })
    await a.whenCrashed()
    for (let run = 2; run <= 3; run++) {
      const next = crashable(shared)
      await start(next)
      await next.whenCrashed()
      expect(runs).toBe(run)
    }
    const last = await start(shared)
    await waitFor(() => last.dead.length === 1)
    expect(runs).toBe(3)
    expect(last.dead[0]).toMatchObject({
      kind: 'inbox',
      id: recordId('m1'),
      error: { message: expect.stringMatching(/3 runs did not complete/) },
    })
    expect(await last.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'dead', attempts: 3, lease: null })
    expect(last.bot.durability!.metrics().inboundDead).toBe(1)
    // The start after it is healthy.
    await last.provider.receive({ id: 'm2', chatId: 'c1', text: 'hello' })
    await last.bot.idle()
    expect(last.provider.texts()).toEqual(['echo hello'])
    expect(runs).toBe(3)
  })
})

describe('What is guaranteed: while the process is alive', () => {
  it('sends are exactly once while the process is alive (transient failures, redeliveries, replays)', async () => {
    const t = await bots.start({ durability: fast(), setup: threeReplies })
    t.provider.failNext(4)
    for (let n = 1; n <= 5; n++) await t.provider.receive({ id: `m${n}`, chatId: `c${n % 2}`, text: 'hi' })
    for (let n = 1; n <= 5; n++) await t.provider.receive({ id: `m${n}`, chatId: `c${n % 2}`, text: 'hi' })
    await t.bot.idle()
    await t.bot.durability!.replayInbound(recordId('m3'))
    await waitFor(() => t.bot.durability!.metrics().inboundReplayed === 1)
    await waitFor(async () => (await t.bot.durability!.inbox.list({ state: 'done' })).length === 5)
    await t.bot.idle()
    expect(Object.fromEntries(tally(t.provider))).toEqual({ one: 5, two: 5, three: 5 })
  })
})
