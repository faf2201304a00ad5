/** One generation of the workload bot in a crash case: from its start until it crashes or stops gracefully. */
import type { Bot } from '../../core/bot/bot.js'
import type { InboundEvent } from '../../core/provider/provider.js'
import type { CrashableBackend } from '../crashable.js'
import type { CrashableProvider } from '../crashable-provider.js'
import { unsettledCounts, WORKLOAD_SCOPE } from './journal-check.js'
import { seededDraw } from './random.js'
import { BURST_CHATS } from './workload.js'

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
  settleTimeoutMs: number,
  order: { seed: number; generation: number },
): Promise<'crashed' | 'stopped'> {
  const crashed = wrapped.whenCrashed().then(() => 'crashed' as const)
  const work = (async () => {
    await bot.start()
    // Let the sweeps take back what an earlier generation left (once its leases expire), before new messages arrive.
    await settle(bot, wrapped, settleTimeoutMs)
    const arrivals = arrivalOrder(chats, order.seed, order.generation)
    for (const [n, event] of arrivals.entries()) {
      await provider.receive(event)
      acknowledged.add(event.id)
      // A burst chat's next message comes at once, while this one may still be completing.
      if (BURST_CHATS.has(event.chatId) && arrivals[n + 1]?.chatId === event.chatId) continue
      // The next message arrives once this one's work settled (retries backed off included): what
      // is in flight when a crash comes is then decided by the seed, not by which timer fired first.
      await settle(bot, wrapped, settleTimeoutMs)
    }
    await settle(bot, wrapped, settleTimeoutMs)
    await bot.stop()
    return 'stopped' as const
  })()
  // A crash may leave `work` rejected later on; the crash is the outcome then.
  work.catch(() => undefined)
  return Promise.race([crashed, work])
}

/**
 * The order the channel delivers the messages in: the chats interleaved by the seed (each chat's
 * messages in their order), one message at a time (a burst chat's all at once), so that a case's
 * schedule follows its seed.
 */
export function arrivalOrder(chats: InboundEvent[][], seed: number, generation: number): InboundEvent[] {
  const next = chats.map(() => 0)
  const order: InboundEvent[] = []
  for (let step = 0; ; step++) {
    const open = chats.flatMap((messages, chat) => (next[chat]! < messages.length ? [chat] : []))
    if (open.length === 0) return order
    const chat = open[Math.floor(seededDraw(seed, `arrival ${generation} ${step}`) * open.length)]!
    const messages = chats[chat]!
    // A burst chat's messages come together (BURST_CHATS).
    do order.push(messages[next[chat]!++]!)
    while (BURST_CHATS.has(messages[0]!.chatId) && next[chat]! < messages.length)
  }
}

/** How often a generation looks at the journal again while it waits for it to settle. */
const SETTLE_POLL_MS = 20

/**
 * Waits until the bot is idle and the journal settled, or `limitMs` passed (the journal check then
 * reports what is left). Idle alone is not enough: a retry backed off a few ms is not due now, and
 * a record leased by a dead generation is not due until its lease expires.
 */
async function settle(bot: Bot, wrapped: CrashableBackend, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs
  const journal = wrapped.journal(WORKLOAD_SCOPE)
  for (;;) {
    await bot.idle()
    const left = await unsettledCounts(journal)
    if ((left.inbox === 0 && left.outbox === 0) || Date.now() > deadline) return
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS))
  }
}

/**
 * What the channel redelivers to `generation` after a crash: every message not acknowledged, and a
 * seeded few that were. Each choice is drawn from the seed, the generation and the message alone:
 * how many messages were acknowledged before the crash depends on timing, and must not shift the
 * case's other seeded draws.
 */
export function redeliveries(chats: InboundEvent[][], acknowledged: Set<string>, seed: number, generation: number): InboundEvent[][] {
  return chats.map((messages) =>
    messages.filter((event) => !acknowledged.has(event.id) || seededDraw(seed, `redeliver ${generation} ${event.id}`) < 0.3),
  )
}
