/**
 * The demo worker's phases (worker.ts runs one): the first run tells the story up to its crash, the
 * restarted run takes back what the killed one held, replays it (the booking's reply answered from
 * the outbox), takes the channel's redeliveries and sums up; live traffic follows until SIGTERM.
 */
import type { Bot } from '../core/bot/bot.js'
import type { InboundEvent } from '../core/provider/provider.js'
import type { MockProvider } from '../testing/mock-provider.js'
import { CRASH_CHAT, demoMessages, demoSteps, liveMessages } from './channel.js'
import { DEMO_LIMITS } from './limits.js'

/** The worker's options, as the demo passes them (JSON, second argument). */
export interface WorkerOptions {
  phase: '1' | '2' | 'live'
  stepMs: number
  messageMs: number
  livePaceMs: number
  /** Phase 2: go on with live traffic after the story. */
  live?: boolean
  /** Phase 2: the pid of the run that was killed. */
  killedPid?: number
}

export interface WorkerContext {
  bot: Bot
  provider: MockProvider
  file: string
  options: WorkerOptions
  /** The pauses left (0 once hurried). */
  pace: { stepMs: number; messageMs: number }
  pause(ms: number): Promise<void>
  say(line: string): void
}

/** The story's steps and how many there are (the four before the crash, the restart, the replay). */
export const STEPS_TOTAL = demoSteps().length + 2

/** Phase 1: the steps up to the crash; then it waits for the demo to kill it. */
export async function firstStory(context: WorkerContext): Promise<never> {
  const { bot, file, pace, pause, say } = context
  await bot.start()
  say(`bot started (pid ${process.pid}) on ${file}`)
  for (const [index, step] of demoSteps().entries()) {
    const says = step.name === 'crash' ? step.says.replace('the bot process', `the bot process (pid ${process.pid})`) : step.says
    announce(say, step.name, `${index + 1}/${STEPS_TOTAL} ${says}`)
    for (const event of step.events) {
      await deliver(context, event)
      await pause(pace.messageMs)
    }
    if (step.name !== 'crash') await pause(pace.stepMs)
  }
  // Alive until the kill: the bot's own timers do not hold the process (a pending await alone exits with code 13).
  setInterval(() => undefined, 60_000)
  return new Promise<never>(() => undefined)
}

/** Phase 2: the restart, the replay, the channel's redeliveries; then the summary of the story. */
export async function restartStory(context: WorkerContext): Promise<void> {
  const { bot, options, pace, pause, say } = context
  const killed = options.killedPid === undefined ? 'the killed run' : `pid ${options.killedPid}`
  announce(
    say,
    'restart',
    `${STEPS_TOTAL - 1}/${STEPS_TOTAL} the restart: pid ${process.pid} starts with the same instanceId and takes back what ${killed} held`,
  )
  await bot.start()
  say(`bot restarted (pid ${process.pid}) with the same instanceId: replaying what the crash left`)
  await settle(bot, () => bot.durability!.metrics().outboxDeduped > 0)
  await pause(pace.stepMs)
  const deduped = bot.durability!.metrics().outboxDeduped
  announce(
    say,
    'replay',
    `${STEPS_TOTAL}/${STEPS_TOTAL} the replay: ${CRASH_CHAT}'s message ran again; her reply, sent before the crash, was answered from the outbox (${deduped}), not sent twice`,
  )
  await pause(pace.stepMs)
  for (const event of demoMessages()) await deliver(context, event)
  await settle(bot, async () => {
    const [pending, failed, inboxFailed] = await Promise.all([
      bot.durability!.outbox.list({ state: 'pending' }),
      bot.durability!.outbox.list({ state: 'failed' }),
      bot.durability!.inbox.list({ state: 'failed' }),
    ])
    return pending.length + failed.length + inboxFailed.length === 0
  })
  say(`SUMMARY ${JSON.stringify({ metrics: bot.durability!.metrics(), sent: context.provider.sent.length })}`)
}

/** Live traffic: the story's messages again and again (fresh ids) until SIGTERM; then the summary. */
export async function liveTraffic(context: WorkerContext): Promise<void> {
  const { bot, provider, options, say } = context
  let stopping = false
  let wake: () => void = () => undefined
  process.once('SIGTERM', () => ((stopping = true), wake()))
  if (options.phase === 'live') await bot.start()
  say(`live traffic (pid ${process.pid}): the story's messages again every ${options.livePaceMs} ms until you quit`)
  for (let round = 1; !stopping; round++) {
    for (const event of liveMessages(round)) {
      if (stopping) break
      await provider.receive(event).catch((error: Error) => say(`  ! not journaled: ${error.message}`))
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.livePaceMs)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }
  say(`SUMMARY ${JSON.stringify({ metrics: bot.durability!.metrics(), sent: provider.sent.length })}`)
}

function announce(say: (line: string) => void, name: string, text: string): void {
  say(`STEP ${name}\t${text}`)
}

/** Delivers one inbound event; labelled a redelivery only when the bot recognised it as journaled before. */
async function deliver({ bot, provider, say }: WorkerContext, event: InboundEvent): Promise<void> {
  const before = bot.durability!.metrics().inboundDuplicates
  try {
    await provider.receive(event)
  } catch (error) {
    say(`  ! not journaled: ${(error as Error).message}`)
  }
  const redelivered = bot.durability!.metrics().inboundDuplicates > before
  say(
    `  → ${event.chatId}: ${event.text ?? `[${event.media?.type}]`}${redelivered ? ' (redelivered by the channel: journaled before, not run twice)' : ''}`,
  )
}

/** Waits, idle after idle, until `done` or `DEMO_LIMITS.settleMaxMs` passed. */
async function settle(bot: Bot, done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DEMO_LIMITS.settleMaxMs
  for (;;) {
    await bot.idle()
    if ((await done()) || Date.now() > deadline) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
