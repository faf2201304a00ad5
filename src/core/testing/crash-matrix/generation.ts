/** One generation of the workload bot in a crash case: from its start until it crashes or stops gracefully. */
import type { Bot } from '../../bot.js'
import type { InboundEvent } from '../../provider.js'
import type { CrashableBackend } from '../crashable.js'
import type { CrashableProvider } from '../crashable-provider.js'
import { seededDraw } from './random.js'

/**
 * Delivers the messages (chats in parallel, in order within a chat) and stops the bot once it is
 * idle, unless it crashes first. The graceful stop is part of the race because it writes too (it
 * removes the instance heartbeat, an 'instances.beat'): a crash armed there ends the generation like
 * any other crash; awaited outside the race, it never settled and the case hung.
 */
export async function runGeneration(
  bot: Bot,
  provider: CrashableProvider,
  wrapped: CrashableBackend,
  chats: InboundEvent[][],
  acknowledged: Set<string>,
): Promise<'crashed' | 'stopped'> {
  const crashed = wrapped.whenCrashed().then(() => 'crashed' as const)
  const work = (async () => {
    await bot.start()
    // Let the first sweep take back what an earlier generation left, before new messages arrive.
    await bot.idle()
    await Promise.all(
      chats.map(async (messages) => {
        for (const event of messages) {
          await provider.receive(event)
          acknowledged.add(event.id)
        }
      }),
    )
    await bot.idle()
    await bot.stop()
    return 'stopped' as const
  })()
  // A crash may leave `work` rejected later on; the crash is the outcome then.
  work.catch(() => undefined)
  return Promise.race([crashed, work])
}

/**
 * What the channel redelivers to `generation` after a crash: every message not acknowledged, and a
 * seeded few that were. Each choice is drawn from the seed, the generation and the message alone:
 * how many messages were acknowledged before the crash depends on timing, and must not shift the
 * case's other seeded draws.
 */
export function redeliveries(chats: InboundEvent[][], acknowledged: Set<string>, seed: number, generation: number): InboundEvent[][] {
  return chats.map((messages) => messages.filter((event) => !acknowledged.has(event.id) || seededDraw(seed, `redeliver ${generation} ${event.id}`) < 0.3))
}
