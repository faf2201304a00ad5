/**
 * Conversation hand-over between coordinated replicas in one process (real processes on PostgreSQL
 * and Redis: replicas-processes.test.ts): a persistent flow's steps land on alternate replicas that
 * share a store, and each answer lands on its question. A step whose checkpoint write fails is not
 * acknowledged: it runs again, and the next answer still lands on the right question.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import { flow } from '../../src/core/bot/flow.js'
import { text } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import type { Json } from '../../src/core/durability/journal/kv.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots } from '../core/helpers.js'

const bots = useBots()

/** A shared store whose next checkpoint write fails when `failNext` is set. */
class FlakyStore extends MemoryStore {
  failNext = false
  override async setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void> {
    if (this.failNext) {
      this.failNext = false
      throw new Error('store unreachable')
    }
    return super.setCheckpoint(scope, chatId, checkpoint)
  }
}

const signup = (bot: Bot) => {
  bot.when(
    text('signup'),
    flow('signup')
      .ask('name?', (ctx, answer) => ctx.state.set('name', answer.text!))
      .ask('email?', async (ctx, answer) => void (await ctx.reply(`welcome ${await ctx.state.get<string>('name')} ${answer.text}`)))
      .persistent(),
  )
}

describe('conversation hand-over', () => {
  it('continues a persistent flow on whichever replica gets the next message; a failed checkpoint write is not acknowledged and runs again', async () => {
    const store = new FlakyStore()
    const backend = new MemoryDurability()
    const [a, b] = await Promise.all(
      ['a', 'b'].map((id) =>
        bots.start({ botId: 'handover', store, durability: fast({ backend, instanceId: id, coordination: true }), setup: signup }),
      ),
    )
    const done = (id: string) =>
      waitFor(async () => (await a!.bot.durability!.inbox.get(recordId(id, 'c1')))?.state === 'done', {
        timeoutMs: 10_000,
        message: `${id} done`,
      })
    await a!.provider.receive({ id: 'm1', chatId: 'c1', text: 'signup' })
    await done('m1')
    // The answer to "name?" lands on b, whose checkpoint write fails once: not done until it ran again.
    store.failNext = true
    await b!.provider.receive({ id: 'm2', chatId: 'c1', text: 'Ada' })
    await done('m2')
    const m2 = await b!.bot.durability!.inbox.get(recordId('m2', 'c1'))
    expect(m2!.attempts).toBe(2)
    await a!.provider.receive({ id: 'm3', chatId: 'c1', text: 'ada@example.org' })
    await done('m3')
    const texts = [...a!.provider.texts('c1'), ...b!.provider.texts('c1')]
    expect(texts.sort()).toEqual(['email?', 'name?', 'welcome Ada ada@example.org'].sort())
    expect(await store.getCheckpoint(a!.bot.scope, 'c1')).toMatchObject({ flow: 'signup', finished: true, fedBy: recordId('m3', 'c1') })
  })
})

describe('a flow step on a standby (leader-only transport session)', () => {
  // A question deferred on a standby is asked all the same (the leader delivers it): the flow waits for its answer.
  it('writes its checkpoint when its question is journaled and deferred: the next message answers it', async () => {
    const provider = new MockProvider({ session: 'leader' })
    provider.leader = false
    const store = new MemoryStore()
    const t = await bots.start({ provider, store, durability: fast({ coordination: true }), setup: signup })
    const done = (id: string) =>
      waitFor(async () => (await t.bot.durability!.inbox.get(recordId(id, 'c1')))?.state === 'done', {
        timeoutMs: 10_000,
        message: `${id} done`,
      })
    // On a standby ctx.reply journals the question and rejects with SendDeferredError: the flow still asked it.
    await provider.receive({ id: 'm1', chatId: 'c1', text: 'signup' })
    await done('m1')
    expect(await store.getCheckpoint(t.bot.scope, 'c1')).toMatchObject({
      flow: 'signup',
      step: 0,
      finished: false,
      fedBy: recordId('m1', 'c1'),
    })
    provider.leader = true
    await waitFor(() => provider.texts('c1').includes('name?'), { timeoutMs: 10_000, message: 'the question delivered by the leader' })
    await provider.receive({ id: 'm2', chatId: 'c1', text: 'Ada' })
    await done('m2')
    await provider.receive({ id: 'm3', chatId: 'c1', text: 'ada@example.org' })
    await done('m3')
    await waitFor(() => provider.texts('c1').length === 3, { timeoutMs: 10_000, message: 'three replies' })
    expect(provider.texts('c1')).toEqual(['name?', 'email?', 'welcome Ada ada@example.org'])
  })
})
