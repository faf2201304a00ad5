/**
 * One run of the demo bot, in its own process so the demo can kill it with SIGKILL and start it
 * again: `worker.js <file> <options json>` (see `WorkerOptions`). It prints what happens, one line
 * per event; `STEP <name>\t<text>` when a step of the story begins, `CRASH` when the first run's
 * story reached the crash (a reply sent, its handler not done: the demo kills it there), and
 * `SUMMARY <json>` when the story is told (and again when live traffic stopped). Phase `2` with
 * `live` goes on with live traffic after the story, in the same process (the pid the dashboard
 * says took over stays the one it lists); phase `live` is live traffic alone. A line `hurry` on
 * stdin drops every pause left (the operator quit the dashboard).
 */
import { createInterface } from 'node:readline'
import { SQLiteStore } from '../backends/sqlite/index.js'
import { textOf } from '../core/bot/hooks.js'
import { demoProvider } from './channel.js'
import { demoBot } from './demo-bot.js'
import { DEMO_LIMITS } from './limits.js'
import { liveTraffic, restartStory, firstStory, type WorkerContext, type WorkerOptions } from './worker-story.js'

const [file = './data/bot.db', json = '{}'] = process.argv.slice(2)
const options = JSON.parse(json) as WorkerOptions
const say = (line: string) => process.stdout.write(`${line}\n`)

const pace = { stepMs: options.stepMs, messageMs: options.messageMs }
const wakers = new Set<() => void>()
const stdin = createInterface({ input: process.stdin })
stdin.on('line', (line) => {
  if (line.trim() !== 'hurry') return
  pace.stepMs = 0
  pace.messageMs = 0
  for (const wake of wakers) wake()
})
// Listening to stdin keeps no process alive that is done.
;(process.stdin as { unref?: () => void }).unref?.()

/** A pause of the story: `ms`, or until hurried. */
function pause(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => (clearTimeout(timer), wakers.delete(done), resolve())
    const timer = setTimeout(done, ms)
    wakers.add(done)
  })
}

const store = new SQLiteStore({ file })
const provider = demoProvider()
// The first run's crash waits here: the booking's reply is sent and marked so, its handler is not done.
const afterReply = options.phase === '1' ? (chatId: string) => crashPoint(chatId) : undefined
const bot = demoBot({ provider, store, backend: store.durability(), afterReply })
bot.after('send', (sent) => {
  say(`  ← ${sent.chatId}: ${short(textOf(sent.content))}`)
})
bot.on('durability:dead', ({ kind, id, error }) => say(`  ✖ dead letter (${kind}) ${id}: ${error?.message ?? ''}`))
bot.on('durability:ambiguous', ({ key, chatId }) => say(`  ? ambiguous send ${key} to ${chatId} (outcome unknown after the crash)`))
bot.on('error', (error: Error) => say(`  ! ${error.message}`))
bot.on('warning', (message: string) => say(`  ! ${message}`))

const context: WorkerContext = { bot, provider, file, options, pace, pause, say }
if (options.phase === '1') await firstStory(context)
else if (options.phase === '2') await restartStory(context)
if (options.phase === 'live' || options.live) await liveTraffic(context)
await bot.stop()
stdin.close()

/**
 * Says `CRASH` once the reply's outbox record says `sent` (a mark may wait a moment to ride with the
 * message's completion: a crash before it lands is the ambiguous one), then never returns.
 */
async function crashPoint(chatId: string): Promise<never> {
  const deadline = Date.now() + DEMO_LIMITS.settleMaxMs
  for (;;) {
    const sending = await bot.durability!.outbox.list({ state: 'sending' })
    if (!sending.some((record) => record.chatId === chatId) || Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  say('CRASH')
  return new Promise<never>(() => undefined)
}

function short(value: string | null): string {
  const text = value ?? ''
  return text.length > 70 ? `${text.slice(0, 67)}…` : text
}
