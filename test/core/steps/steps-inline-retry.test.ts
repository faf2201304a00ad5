/**
 * The contract's inline retry on the steps engine: a send the provider failed is retried inline,
 * with backoff, for up to outbox.inlineMaxMs (`ctx.reply` resolves once it went out), and only then
 * rejects with SendDeferredError while the sweeper finishes it. A later send to the chat goes out
 * after it. Before, the steps engine left every failed call to the sweeper at once.
 */
import { describe, expect, it, vi } from 'vitest'
import { onEngine } from '../../../test-utils/engine.js'
import { MemoryDurability } from '../../../src/core/durability/memory/memory-durability.js'
import { StepsEngine } from '../../../src/core/durability/steps/steps-engine.js'
import { SendDeferredError } from '../../../src/core/errors/errors.js'
import { TEXT } from '../../../src/core/bot/matchers.js'
import { waitFor } from '../../../test-utils/wait.js'
import { fast, textOf, useBots } from '../helpers.js'

const bots = useBots()
onEngine('steps')

describe('the steps engine, when the provider fails a send', () => {
  it('retries it inline: the reply resolves once it went out, and the next reply to the chat follows it', async () => {
    const outcomes: unknown[] = []
    const stepsAdmits = vi.spyOn(StepsEngine.prototype, 'admit')
    const t = await bots.start({
      durability: fast({ backend: new MemoryDurability() }),
      untapped: true,
      setup: (bot) =>
        bot.when(TEXT, async (ctx) => {
          // Not awaited one by one: the second must still go out after the first, which is retried.
          const first = ctx.reply('first').then((result) => result.messageId)
          const second = ctx.reply('second').then((result) => result.messageId)
          outcomes.push(...(await Promise.all([first, second].map((sent) => sent.catch((error: unknown) => error)))))
        }),
    })
    t.provider.failNext(2, undefined, (_chatId, content) => textOf(content) === 'first')
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'go' })
    await waitFor(() => outcomes.length === 2, { message: 'both replies settled' })
    expect(stepsAdmits).toHaveBeenCalled()
    stepsAdmits.mockRestore()
    expect(outcomes).toEqual([expect.any(String), expect.any(String)])
    expect(t.provider.texts('c1')).toEqual(['first', 'second'])
    await t.bot.idle()
    expect(t.provider.texts('c1')).toEqual(['first', 'second'])
    expect(t.dead).toEqual([])
  })

  it('rejects with SendDeferredError once outbox.inlineMaxMs is spent, and the sweeper sends it once', async () => {
    const outcomes: unknown[] = []
    const t = await bots.start({
      // Each retry waits at least 50 ms: past the 20 ms allowed inline after the first failure.
      durability: fast({ backend: new MemoryDurability(), outbox: { inlineMaxMs: 20, backoff: { baseMs: 50, capMs: 50, jitter: 0 } } }),
      untapped: true,
      setup: (bot) =>
        bot.when(TEXT, (ctx) =>
          ctx.reply('late').then(
            (result) => void outcomes.push(result.messageId),
            (error: unknown) => void outcomes.push(error),
          ),
        ),
    })
    t.provider.failNext(1)
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'go' })
    await waitFor(() => outcomes.length === 1, { message: 'the reply settled' })
    expect(outcomes[0]).toBeInstanceOf(SendDeferredError)
    await waitFor(() => t.provider.texts('c1').length === 1, { message: 'the sweeper sent it' })
    await t.bot.idle()
    expect(t.provider.texts('c1')).toEqual(['late'])
  })
})
