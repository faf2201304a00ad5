/**
 * The bot runtime the seed assumes (README.md): Bot, matchers, ctx, flows, hooks, broadcast with
 * concurrency, edits/drafts/typing, stop — and "without the durability key nothing changes": no
 * journal code runs at all.
 */
import { AsyncLocalStorage, executionAsyncId } from 'node:async_hooks'
import { afterEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { MemoryKv } from '../../src/core/backend-internals.js'
import { Bot } from '../../src/core/bot/bot.js'
import { Admission } from '../../src/core/durability/admission/admission.js'
import { DurableSender } from '../../src/core/durability/outbox/durable-sender.js'
import { MessageEngine } from '../../src/core/durability/message-engine.js'
import { DurablePipeline } from '../../src/core/pipeline/durable-pipeline.js'
import { KvDurability } from '../../src/core/durability/journal/kv-durability.js'
import { Outbox } from '../../src/core/durability/outbox/outbox.js'
import { Sweeper } from '../../src/core/durability/sweep/sweeper.js'
import { flow } from '../../src/core/bot/flow.js'
import { ANY, AUDIO, DOCUMENT, IMAGE, INTERACTION, TEXT, VIDEO, text } from '../../src/core/bot/matchers.js'
import { BotmeshError } from '../../src/core/errors/errors.js'
import { ProviderError, UnsupportedContentError } from '../../src/core/provider/provider-errors.js'
import type { IProvider, OutboundContent, ProviderSendResult } from '../../src/core/provider/provider.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { deferred, waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots } from './helpers.js'

const bots = useBots()
afterEach(() => {
  vi.restoreAllMocks()
})

/** Both ways the runtime runs: the rows below hold with and without durability. */
const modes = [
  ['without durability', undefined],
  ['with durability', fast()],
] as const

describe.each(modes)('The runtime (%s)', (_mode, durability) => {
  const start = (spec: Parameters<typeof bots.start>[0] = {}) => bots.start({ ...spec, ...(durability ? { durability: fast() } : {}) })
  /** ctx.ref.id: the inbox record id with durability, the event id without. */
  const refId = (eventId: string, chatId: string) => (durability ? recordId(eventId, chatId) : eventId)

  it('matchers: TEXT, IMAGE, VIDEO, AUDIO, DOCUMENT, INTERACTION, text(string | RegExp), a predicate; first match wins', async () => {
    const routed: string[] = []
    const t = await start({
      setup: (bot) => {
        const on = (name: string) => (ctx: { message: { id: string } }) => void routed.push(`${ctx.message.id}:${name}`)
        bot.when(text('  HELP '), on('help'))
        bot.when(text(/^order #(\d+)$/), on('order'))
        bot.when((event) => event.from === 'admin', on('admin'))
        bot.when(TEXT, on('text'))
        bot.when(TEXT, on('never: TEXT matched first'))
        bot.when(IMAGE, on('image'))
        bot.when(VIDEO, on('video'))
        bot.when(AUDIO, on('audio'))
        bot.when(DOCUMENT, on('document'))
        bot.when(INTERACTION, on('interaction'))
        bot.when(ANY, on('any'))
      },
    })
    const events = [
      { id: 'e1', chatId: 'c1', text: 'help' },
      { id: 'e2', chatId: 'c1', text: 'order #42' },
      { id: 'e3', chatId: 'c1', text: 'hi', from: 'admin' },
      { id: 'e4', chatId: 'c1', text: 'hello' },
      { id: 'e5', chatId: 'c1', media: { type: 'image' as const, token: 'i' } },
      { id: 'e6', chatId: 'c1', media: { type: 'video' as const, token: 'v' } },
      { id: 'e7', chatId: 'c1', media: { type: 'audio' as const, token: 'a' } },
      { id: 'e8', chatId: 'c1', media: { type: 'document' as const, token: 'd' } },
      { id: 'e9', chatId: 'c1', interaction: { id: 'yes' } },
      { id: 'e10', chatId: 'c1', media: { type: 'sticker' as const, token: 's' } },
    ]
    for (const event of events) await t.provider.receive(event)
    await t.bot.idle()
    expect(routed).toEqual([
      'e1:help',
      'e2:order',
      'e3:admin',
      'e4:text',
      'e5:image',
      'e6:video',
      'e7:audio',
      'e8:document',
      'e9:interaction',
      'e10:any',
    ])
  })

  it('ctx: ref, message, reply, user (per chat, in the store), state, chatId', async () => {
    const store = new MemoryStore()
    const seen = new Map<string, unknown>()
    const t = await start({
      store,
      setup: (bot) =>
        bot.when(ANY, async (ctx) => {
          const visits = ((await ctx.user.get<number>('visits')) ?? 0) + 1
          await ctx.user.set('visits', visits)
          await ctx.state.set('scratch', visits)
          const result = await ctx.reply(`visit ${visits}`)
          seen.set(ctx.message.id, {
            ref: ctx.ref,
            chatId: ctx.chatId,
            kind: ctx.message.kind,
            text: ctx.message.text,
            visits,
            scratch: await ctx.state.get('scratch'),
            replied: result.messageId,
          })
        }),
    })
    await t.provider.receive({ id: 'w1', chatId: 'c1', text: 'hi' })
    await t.provider.receive({ id: 'w2', chatId: 'c1', interaction: { id: 'b' } })
    await t.provider.receive({ id: 'w3', chatId: 'c2', text: 'hi' })
    await t.bot.idle()
    const idOf = (chatId: string, content: string) => t.provider.sent.find((s) => s.chatId === chatId && s.content === content)!.messageId
    expect(Object.fromEntries(seen)).toEqual({
      w1: {
        ref: { id: refId('w1', 'c1'), chatId: 'c1', messageId: 'w1' },
        chatId: 'c1',
        kind: 'message',
        text: 'hi',
        visits: 1,
        scratch: 1,
        replied: idOf('c1', 'visit 1'),
      },
      w2: {
        ref: { id: refId('w2', 'c1'), chatId: 'c1', messageId: 'w2' },
        chatId: 'c1',
        kind: 'interaction',
        text: undefined,
        visits: 2,
        scratch: 2,
        replied: idOf('c1', 'visit 2'),
      },
      w3: {
        ref: { id: refId('w3', 'c2'), chatId: 'c2', messageId: 'w3' },
        chatId: 'c2',
        kind: 'message',
        text: 'hi',
        visits: 1,
        scratch: 1,
        replied: idOf('c2', 'visit 1'),
      },
    })
    expect(await store.getUser(t.bot.scope, 'c1', 'visits')).toBe(2)
    expect(t.provider.texts('c1')).toEqual(['visit 1', 'visit 2'])
    expect(t.provider.texts('c2')).toEqual(['visit 1'])
  })

  it('flows: `ask` questions in order; a chat with a flow waiting for an answer gets the answer; state is kept across steps', async () => {
    const t = await start({
      setup: (bot) => {
        bot.when(
          text('signup'),
          flow('signup')
            .ask('Your name?', async (ctx, answer) => ctx.state.set('name', answer.text!))
            .ask({ text: 'Your email?', buttons: [{ id: 'skip', title: 'Skip' }] }, async (ctx, answer) => {
              await ctx.reply(`Thanks ${await ctx.state.get('name')} (${answer.text ?? answer.interaction?.id})`)
            }),
        )
        bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
      },
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'signup' })
    await t.provider.receive({ id: 'm2', chatId: 'c2', text: 'other chat' })
    await t.provider.receive({ id: 'm3', chatId: 'c1', text: 'Bob' })
    await t.provider.receive({ id: 'm4', chatId: 'c1', interaction: { id: 'skip' } })
    await t.provider.receive({ id: 'm5', chatId: 'c1', text: 'after' })
    await t.bot.idle()
    expect(t.provider.texts('c1')).toEqual(['Your name?', 'Your email?', 'Thanks Bob (skip)', 'echo after'])
    expect(t.provider.texts('c2')).toEqual(['echo other chat'])
  })

  it('`.persistent()` keeps checkpoints in the store; a plain flow lives in memory', async () => {
    const store = new MemoryStore()
    const t = await start({
      store,
      setup: (bot) => {
        bot.when(text('kept'), flow('kept').ask('Q1?').ask('Q2?').persistent())
        bot.when(text('plain'), flow('plain').ask('P1?').ask('P2?'))
      },
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'kept' })
    await t.provider.receive({ id: 'm2', chatId: 'c2', text: 'plain' })
    await t.bot.idle()
    expect(await store.getCheckpoint(t.bot.scope, 'c1')).toMatchObject({ flow: 'kept', step: 0, finished: false })
    expect(await store.getCheckpoint(t.bot.scope, 'c2')).toBeUndefined()
    await t.provider.receive({ id: 'm3', chatId: 'c1', text: 'a1' })
    await t.provider.receive({ id: 'm4', chatId: 'c1', text: 'a2' })
    await t.bot.idle()
    expect(await store.getCheckpoint(t.bot.scope, 'c1')).toMatchObject({ flow: 'kept', finished: true })
    expect(t.provider.texts('c1')).toEqual(['Q1?', 'Q2?'])
  })

  it("before('send') and after('send') hooks run once per send; a before hook may rewrite the content", async () => {
    const store = new MemoryStore()
    const log: string[] = []
    const t = await start({
      store,
      setup: (bot) => {
        bot.before('send', (send) => {
          log.push(`before ${JSON.stringify(send.content)}`)
          return { ...send, content: `${send.content as string} — Acme` }
        })
        bot.after('send', (sent) => void log.push(`after ${JSON.stringify(sent.content)} ${sent.messageId}`))
        bot.when(TEXT, (ctx) => ctx.reply('hello'))
      },
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(log).toEqual(['before "hello"', `after "hello — Acme" ${t.provider.sent[0]!.messageId}`])
    expect(t.provider.texts()).toEqual(['hello — Acme'])
    expect((await store.listLog(t.bot.scope, 'c1', 10)).map((e) => [e.direction, e.text])).toEqual([
      ['in', 'hi'],
      ['out', 'hello — Acme'],
    ])
  })

  it('`bot.broadcast` sends to many chats, `concurrency` at a time, with a result (or error) per chat', async () => {
    const provider = new SteppedProvider()
    provider.failNext(1, new ProviderError('BLOCKED', 'blocked', { retryable: false }), (chatId) => chatId === 'c4')
    const t = await start({ provider })
    const chats = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']
    const broadcasting = t.bot.broadcast(chats, 'Sale!', { concurrency: 3 })
    for (let released = 0; released < chats.length; released++) {
      await waitFor(
        () => provider.waiting.length === Math.min(3, chats.length - released) || provider.waiting.length + provider.done === chats.length,
      )
      expect(provider.waiting.length).toBeLessThanOrEqual(3)
      provider.releaseOne()
    }
    const results = await broadcasting
    expect(provider.maxInFlight).toBe(3)
    expect(results.map((r) => r.chatId)).toEqual(chats)
    expect(results.filter((r) => 'error' in r).map((r) => r.chatId)).toEqual(['c4'])
    expect(new Set(provider.sent.map((s) => s.chatId))).toEqual(new Set(chats.filter((c) => c !== 'c4')))
  })

  it('`bot.broadcast` without a concurrency sends one at a time', async () => {
    const provider = new SteppedProvider()
    const t = await start({ provider })
    const broadcasting = t.bot.broadcast(['c1', 'c2', 'c3'], 'Hi')
    for (let n = 0; n < 3; n++) {
      await waitFor(() => provider.waiting.length === 1)
      provider.releaseOne()
    }
    await broadcasting
    expect(provider.maxInFlight).toBe(1)
    expect(provider.sent.map((s) => s.chatId)).toEqual(['c1', 'c2', 'c3'])
  })

  it('every error of bot.edit and MockProvider is a class with a code: an edit the provider cannot make, content it cannot keep, a receive before start', async () => {
    const withoutEdit: IProvider = {
      name: 'no-edits',
      textLimit: 4096,
      start: async () => {},
      stop: async () => {},
      send: async () => ({ messageId: 'm' }),
    }
    const bot = new Bot({ provider: withoutEdit })
    const refused = await bot.edit('c1', 'm1', 'v2').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ProviderError)
    expect(refused).toMatchObject({ code: 'EDIT_UNSUPPORTED', retryable: false, message: 'no-edits cannot edit messages' })
    const provider = new MockProvider()
    // A stream-like object: a function in it cannot be copied.
    const stream = { type: 'image' as const, url: 'https://example.com/a.png', read: () => null }
    const uncopyable = await provider.send('c1', { media: stream } as OutboundContent).catch((error: unknown) => error)
    expect(uncopyable).toBeInstanceOf(UnsupportedContentError)
    expect(uncopyable).toMatchObject({ code: 'UNSUPPORTED_CONTENT', retryable: false })
    expect((uncopyable as Error).message).toMatch(/^MockProvider keeps a copy of every send, and this content cannot be copied: /)
    const early = await provider.receive({ id: 'e1', chatId: 'c1', text: 'hi' }).catch((error: unknown) => error)
    expect(early).toBeInstanceOf(BotmeshError)
    expect(early).toMatchObject({ code: 'NOT_STARTED' })
  })

  it('edits, drafts and typing indicators reach the provider (and are not journaled)', async () => {
    const t = await start({})
    const { messageId } = await t.bot.send('c1', 'v1', { idempotencyKey: 'k' })
    const journaled = t.tap ? t.tap.writes.length : 0
    await t.bot.edit('c1', messageId!, 'v2')
    await t.bot.typing('c1')
    await t.bot.draft('c1', 'typing a long answer…')
    expect(t.provider.edits).toEqual([{ chatId: 'c1', messageId, content: 'v2' }])
    expect(t.provider.typings).toEqual(['c1'])
    expect(t.provider.drafts).toEqual([{ chatId: 'c1', content: 'typing a long answer…' }])
    if (t.tap) {
      expect(t.tap.writes.length).toBe(journaled)
      expect((await t.bot.durability!.outbox.list()).map((r) => r.key)).toEqual(['k'])
      expect(t.bot.durability!.metrics().outboxJournaled).toBe(1)
    }
  })

  it('`stop()` is graceful: it stops taking messages and finishes the work in flight first', async () => {
    const release = deferred()
    let handled = false
    const t = await start({
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          await release.promise
          await ctx.reply('finished')
          handled = true
        }),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    let stopped = false
    const stopping = t.bot.stop().then(() => void (stopped = true))
    await waitFor(() =>
      t.provider.receive({ id: 'm2', chatId: 'c1', text: 'late' }).then(
        () => false,
        () => true,
      ),
    )
    expect(stopped).toBe(false)
    release.resolve()
    await stopping
    expect(handled).toBe(true)
    expect(t.provider.texts()).toEqual(['finished'])
    if (t.tap) {
      expect(t.tap.count('stop')).toBe(1)
      expect((await t.tap.inner.journal(t.bot.scope).read('inbox', [recordId('m1')]))[0]!.record.state).toBe('done')
    }
    await t.bot.stop() // idempotent
  })
})

describe('The runtime with durability', () => {
  it('a broadcast with an idempotencyKey names each send `<key>:<chatId>`; a second broadcast of the key sends nothing', async () => {
    const t = await bots.start({ durability: fast() })
    const first = await t.bot.broadcast(['c1', 'c2', 'c3'], 'Sale!', { concurrency: 2, idempotencyKey: 'sale-7' })
    expect(first.map((r) => ('result' in r ? r.result.key : null))).toEqual(['sale-7:c1', 'sale-7:c2', 'sale-7:c3'])
    const second = await t.bot.broadcast(['c1', 'c2', 'c3'], 'Sale!', { concurrency: 2, idempotencyKey: 'sale-7' })
    expect(second.every((r) => 'result' in r && r.result.deduped)).toBe(true)
    expect(t.provider.sent).toHaveLength(3)
  })

  it('ctx.ref.id is the inbox record id, and a handler’s sends are journaled under it', async () => {
    let refId: string | undefined
    let messageId: string | undefined
    const t = await bots.start({
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          refId = ctx.ref.id
          messageId = ctx.ref.messageId
          await ctx.reply('ok')
        }),
    })
    await t.provider.receive({ id: 'wamid.X', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(refId).toBe('mock:c1:wamid.X')
    expect(refId).toBe(recordId('wamid.X', 'c1'))
    expect(messageId).toBe('wamid.X')
    expect(await t.bot.durability!.inbox.get(refId!)).toMatchObject({ state: 'done' })
    expect(await t.bot.durability!.outbox.get(`${refId}:1`)).toMatchObject({ state: 'sent', inboundId: refId })
  })

  it('a stopped durable bot leaves no async context tracking on: the promises of the process run without hooks again', async () => {
    // With promise hooks off, a promise reaction runs with no async id (0); with them on, with its own.
    const reactionAsyncId = () => Promise.resolve().then(() => executionAsyncId())
    expect(await reactionAsyncId()).toBe(0)
    // Node 20's AsyncLocalStorage turns promise hooks on while a store is enabled; Node 24's
    // (AsyncContextFrame) never does, so there the hooks have nothing to show on or off.
    const probe = new AsyncLocalStorage<number>()
    const hooksWhileOn = (await probe.run(1, reactionAsyncId)) > 0
    probe.disable()
    let inHandler: number | undefined
    const t = await bots.start({
      durability: fast(),
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          inHandler = await reactionAsyncId()
          await bot.send(ctx.chatId, 'from bot.send')
        }),
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    if (hooksWhileOn) expect(inHandler).toBeGreaterThan(0)
    expect(await t.bot.durability!.outbox.get(`${recordId('m1', 'c1')}:1`)).toMatchObject({ keySource: 'derived' })
    await t.bot.stop()
    expect(await reactionAsyncId()).toBe(0)
  })
})

describe('Without the durability key nothing changes', () => {
  /** Every entry point of the durability engine, and a backend whose every method throws. */
  function spyOnJournalCode(implementation: 'throw' | 'passthrough'): MockInstance[] {
    const targets: [object, string[]][] = [
      [DurablePipeline.prototype, ['start', 'stop', 'receive', 'currentOrigin', 'idle']],
      [MessageEngine.prototype, ['start', 'stop', 'admit', 'send', 'enqueue', 'delivered', 'idle']],
      [DurableSender.prototype, ['send', 'enqueue']],
      [Admission.prototype, ['admit']],
      [KvDurability.prototype, ['start', 'stop', 'now', 'journal', 'scopes']],
      [Outbox.prototype, ['send', 'enqueue', 'isInFlight']],
      [Sweeper.prototype, ['sweep']],
      [MemoryKv.prototype, ['start', 'stop', 'now', 'get', 'write', 'due', 'list', 'count', 'purge', 'scope', 'scopes']],
    ]
    return targets.flatMap(([prototype, methods]) =>
      methods.map((method) => {
        const spy = vi.spyOn(prototype as Record<string, () => unknown>, method)
        if (implementation === 'throw') {
          spy.mockImplementation(() => {
            throw new Error(`journal code ran: ${method}`)
          })
        }
        return spy
      }),
    )
  }

  /** Everything a bot does: messages, replies, sends, enqueue, broadcast, flows, hooks, edits, idle, stop. */
  async function exercise(durability: boolean): Promise<{ provider: MockProvider; errors: unknown[] }> {
    const provider = new MockProvider({ textLimit: 10 })
    const t = await bots.start({
      provider,
      ...(durability ? { durability: fast() } : {}),
      setup: (bot) => {
        bot.before('send', (send) => send)
        bot.after('send', () => {})
        bot.when(text('signup'), flow('signup').ask('Name?').ask('Email?').persistent())
        bot.when(text('quiz'), flow('quiz').ask('2+2?'))
        bot.when(TEXT, async (ctx) => {
          await ctx.reply(`echo ${ctx.message.text}`)
          await ctx.user.set('seen', true)
        })
      },
    })
    expect(t.bot.durability === undefined).toBe(!durability)
    for (const [id, chatId, body] of [
      ['m1', 'c1', 'hi'],
      ['m1', 'c1', 'hi'],
      ['m2', 'c1', 'signup'],
      ['m3', 'c1', 'Bob'],
      ['m4', 'c2', 'quiz'],
    ] as const) {
      await provider.receive({ id, chatId, text: body })
    }
    await t.bot.send('c3', 'a text longer than ten characters')
    await t.bot.enqueue('c3', 'later', { idempotencyKey: 'r1' })
    await t.bot.broadcast(['c4', 'c5'], 'all', { concurrency: 2 })
    await t.bot.typing('c3')
    await t.bot.draft('c3', 'draft')
    await t.bot.edit('c3', provider.sent[0]!.messageId, 'edited')
    await waitFor(() => provider.texts().includes('later'))
    await t.bot.idle()
    await t.bot.stop()
    return { provider, errors: t.errors }
  }

  it('no journal code runs: the engine is never created, and a backend whose methods throw is never called', async () => {
    const spies = spyOnJournalCode('throw')
    const { provider, errors } = await exercise(false)
    expect(errors).toEqual([])
    for (const spy of spies) expect(spy, spy.getMockName()).not.toHaveBeenCalled()
    // Without durability a redelivery is simply handled again: nothing remembers it.
    expect(provider.texts('c1')).toEqual(['echo hi', 'echo hi', 'Name?', 'Email?'])
    expect(provider.texts('c3')).toEqual(['a text ', 'longer ', 'than ten ', 'characters', 'later'])
  })

  it('(control) with `durability: {}` the same spies see the journal at work', async () => {
    const spies = spyOnJournalCode('passthrough')
    await exercise(true)
    const called = spies.filter((spy) => spy.mock.calls.length > 0).map((spy) => spy.getMockName())
    expect(called).toEqual(expect.arrayContaining(['start', 'receive', 'admit', 'send', 'enqueue', 'journal', 'sweep', 'write']))
  })

  it('the bot runs exactly the code it ran before: a failed send rejects with the provider’s error, without retries', async () => {
    const provider = new MockProvider()
    let calls = 0
    const error = new ProviderError('DOWN', 'down')
    provider.failNext(1, error, () => (calls++, true))
    const t = await bots.start({ provider })
    await expect(t.bot.send('c1', 'hello')).rejects.toBe(error)
    expect(calls).toBe(1)
    await t.bot.send('c1', 'hello again')
    expect(provider.texts()).toEqual(['hello again'])
  })

  it("a handler that throws reports to bot.on('error')", async () => {
    const t = await bots.start({ setup: (bot) => bot.when(TEXT, () => Promise.reject(new Error('boom'))) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(t.errors.map((e) => (e as Error).message)).toEqual(['boom'])
  })

  it('`new Bot({ provider })` defaults to a MemoryStore and the default namespace', () => {
    const bot = new Bot({ provider: new MockProvider() })
    expect(bot.store).toBeInstanceOf(MemoryStore)
    expect(bot.namespace).toEqual({ tenantId: 'default', environmentId: 'default', botId: 'bot', connectionId: 'default' })
    expect(bot.durability).toBeUndefined()
  })
})

/** A provider whose sends wait until released one by one, counting how many are in flight. */
class SteppedProvider extends MockProvider {
  readonly waiting: (() => void)[] = []
  inFlight = 0
  maxInFlight = 0
  done = 0

  override async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    this.inFlight++
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
    try {
      await new Promise<void>((resolve) => this.waiting.push(resolve))
      return await super.send(chatId, content)
    } finally {
      this.inFlight--
      this.done++
    }
  }

  releaseOne(): void {
    this.waiting.shift()?.()
  }
}
