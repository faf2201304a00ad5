/**
 * What `bot.when` and the send hooks promise a handler's author: a built-in matcher narrows the
 * handler's `ctx.message` to what it checked (typechecked by `npm run typecheck`, which covers this
 * file: `expectTypeOf` and `@ts-expect-error` fail there, not at run time), and `beforeSend` /
 * `afterSend` are the same hooks as the contract's `before('send')` / `after('send')`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { Context, Message } from '../../src/core/bot/context.js'
import {
  AUDIO,
  DOCUMENT,
  IMAGE,
  INTERACTION,
  TEXT,
  VIDEO,
  text,
  type MediaOfType,
  type NarrowingMatcher,
} from '../../src/core/bot/matchers.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { fast, useBots } from './helpers.js'

const bots = useBots()

describe('a matcher narrows the handler’s context', () => {
  it('TEXT and text(…): ctx.message.text is a string, and the handler runs on a text', async () => {
    const seen: string[] = []
    const t = await bots.start({
      setup: (bot) => {
        bot.when(text('ping'), (ctx) => {
          expectTypeOf(ctx.message.text).toEqualTypeOf<string>()
          seen.push(`ping ${ctx.message.text.toUpperCase()}`)
        })
        bot.when(TEXT, (ctx) => {
          expectTypeOf(ctx.message.text).toEqualTypeOf<string>()
          expectTypeOf(ctx).toMatchTypeOf<Context>()
          seen.push(`text ${ctx.message.text.length}`)
        })
      },
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'ping' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'hello' })
    await t.bot.idle()
    expect(seen).toEqual(['ping PING', 'text 5'])
  })

  it('IMAGE, VIDEO, AUDIO and DOCUMENT: ctx.message.media is there, of that type', async () => {
    const seen: string[] = []
    const t = await bots.start({
      setup: (bot) => {
        bot.when(IMAGE, (ctx) => {
          expectTypeOf(ctx.message.media).toMatchTypeOf<MediaOfType<'image'>>()
          expectTypeOf(ctx.message.media.type).toEqualTypeOf<'image'>()
          seen.push(ctx.message.media.type)
        })
        bot.when(VIDEO, (ctx) => void expectTypeOf(ctx.message.media.type).toEqualTypeOf<'video'>())
        bot.when(AUDIO, (ctx) => void expectTypeOf(ctx.message.media.type).toEqualTypeOf<'audio'>())
        bot.when(DOCUMENT, (ctx) => void seen.push(ctx.message.media.type satisfies 'document'))
      },
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', media: { type: 'image', token: 'i' } })
    await t.provider.receive({ id: 'm2', chatId: 'c1', media: { type: 'document', token: 'd' } })
    await t.bot.idle()
    expect(seen).toEqual(['image', 'document'])
  })

  it('a matcher that checks nothing about the message, or a plain boolean one, leaves it as it is', () => {
    const bot = bots.create().bot
    bot.when(INTERACTION, (ctx) => void expectTypeOf(ctx.message).toEqualTypeOf<Message>())
    bot.when(
      (event) => event.chatId === 'c1',
      (ctx) => {
        expectTypeOf(ctx.message.text).toEqualTypeOf<string | undefined>()
        // @ts-expect-error: nothing said the message has a text
        void ctx.message.text.length
      },
    )
  })

  it('a matcher of your own narrows as a type predicate', async () => {
    const fromSomeone: NarrowingMatcher<{ from: string }> = (event): event is InboundEvent & { from: string } => event.from !== undefined
    const seen: string[] = []
    const t = await bots.start({ setup: (bot) => bot.when(fromSomeone, (ctx) => void seen.push(ctx.message.from.toUpperCase())) })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi', from: 'ann' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(seen).toEqual(['ANN'])
    expect(TEXT({ id: 'x', chatId: 'c', text: 'a', media: { type: 'image', token: 't' } })).toBe(false)
  })
})

describe('beforeSend and afterSend', () => {
  it('run once per send around the provider, in registration order with the contract’s before/after("send")', async () => {
    const store = new MemoryStore()
    const log: string[] = []
    const t = await bots.start({
      store,
      durability: fast(),
      setup: (bot) => {
        bot.beforeSend((send) => void log.push(`beforeSend ${JSON.stringify(send.content)}`))
        bot.before('send', (send) => ({ ...send, content: `${send.content as string} — Acme` }))
        bot.beforeSend((send) => void log.push(`beforeSend ${JSON.stringify(send.content)} ${send.key === null ? 'no key' : 'keyed'}`))
        bot.afterSend((sent) => void log.push(`afterSend ${JSON.stringify(sent.content)} ${sent.messageId}`))
        bot.after('send', () => void log.push('after send'))
        bot.when(TEXT, (ctx) => ctx.reply('hello'))
      },
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await t.bot.idle()
    expect(log).toEqual([
      'beforeSend "hello"',
      'beforeSend "hello — Acme" keyed',
      `afterSend "hello — Acme" ${t.provider.sent[0]!.messageId}`,
      'after send',
    ])
    expect(t.provider.texts()).toEqual(['hello — Acme'])
  })
})
