/**
 * What a bot's dead earlier run leaves behind, for the tests of a restart (start-sweep-failed.test.ts,
 * on each engine): instance 'bot' died in m1's handler (chat c1), so m1 is left processing under its lease.
 */
import type { MemoryDurability } from '../../src/core/index.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { crashable } from '../../src/testing/crashable.js'
import { deferred } from '../../test-utils/wait.js'
import { fast, type useBots } from './helpers.js'

/** `untapped`: the earlier bot's backend is not wrapped in a tap (a tap hides the steps: the steps engine's tests). */
export async function leftByADeadRun(bots: ReturnType<typeof useBots>, memory: MemoryDurability, untapped = false): Promise<void> {
  const dying = crashable(memory)
  const inHandler = deferred()
  const earlier = await bots.start({
    durability: fast({ backend: dying, instanceId: 'bot' }),
    untapped,
    setup: (bot) => bot.when(TEXT, () => (inHandler.resolve(), new Promise(() => {}))),
  })
  await earlier.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
  await inHandler.promise
  dying.crashNow()
  bots.abandon(earlier)
}
