import { describe, expect, it } from 'vitest'
import { Bot, MemoryDurability, TEXT, text, flow } from '../../src/core/index.js'
import { MockProvider } from '../../src/testing/index.js'

describe('smoke', () => {
  it('echoes with durability', async () => {
    const provider = new MockProvider()
    const bot = new Bot({ provider, durability: { backend: new MemoryDurability(), instanceId: 'i', pollMs: 20 } })
    bot.when(
      text(/^signup$/i),
      flow('signup')
        .ask('Your name?', async (ctx, a) => {
          await ctx.state.set('name', a.text!)
        })
        .ask('Your email?', async (ctx) => {
          await ctx.reply(`Thanks ${await ctx.state.get('name')}`)
        })
        .persistent(),
    )
    bot.when(TEXT, async (ctx) => {
      await ctx.reply(`echo: ${ctx.message.text}`)
    })
    await bot.start()
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await provider.receive({ id: 'm2', chatId: 'c2', text: 'signup' })
    await provider.receive({ id: 'm3', chatId: 'c2', text: 'Bob' })
    await provider.receive({ id: 'm4', chatId: 'c2', text: 'b@x' })
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await bot.idle()
    expect(provider.texts()).toEqual(['echo: hi', 'Your name?', 'Your email?', 'Thanks Bob'])
    expect(bot.durability!.metrics().inboundDuplicates).toBe(1)
    expect((await bot.durability!.inbox.list({ state: 'done' })).length).toBe(4)
    await bot.stop()
  })
})
