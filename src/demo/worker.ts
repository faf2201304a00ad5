/**
 * One run of the demo bot, in its own process so the demo can kill it with SIGKILL and start it
 * again: `worker.js <file> <phase>`. It prints what happens, one line per event, and at the end of
 * a run that is not killed, a `SUMMARY <json>` line. Phase `live` keeps sending the story's
 * messages again (fresh ids) at the pace until SIGTERM, so a dashboard has something to show.
 */
import { SQLiteStore } from '../backends/sqlite/index.js'
import { textOf } from '../core/hooks.js'
import { demoMessages, demoProvider, liveMessages } from './channel.js'
import { demoBot } from './demo-bot.js'

const [file = './data/bot.db', phase = '1', paceArg = '150'] = process.argv.slice(2)
const pace = Number(paceArg)
const say = (line: string) => process.stdout.write(`${line}\n`)

const store = new SQLiteStore({ file })
const provider = demoProvider()
const bot = demoBot({ provider, store, backend: store.durability() })
bot.after('send', (sent) => {
  say(`  ← ${sent.chatId}: ${short(textOf(sent.content))}`)
})
bot.on('durability:dead', ({ kind, id, error }) => say(`  ✖ dead letter (${kind}) ${id}: ${error?.message ?? ''}`))
bot.on('durability:ambiguous', ({ key, chatId }) => say(`  ? ambiguous send ${key} to ${chatId} (outcome unknown after the crash)`))
bot.on('error', (error: Error) => say(`  ! ${error.message}`))
bot.on('warning', (message: string) => say(`  ! ${message}`))

await bot.start()
if (phase === 'live') await liveTraffic()
say(
  phase === '1'
    ? `bot started (pid ${process.pid}) on ${file}`
    : `bot restarted (pid ${process.pid}) with the same instanceId: replaying what the crash left`,
)
if (phase !== '1') await bot.idle()
for (const event of demoMessages()) {
  // Labelled a redelivery only when the bot recognised it as one (journaled before the crash);
  // what the first run never received is a first delivery, whatever the phase.
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
  if (phase === '1') await new Promise((resolve) => setTimeout(resolve, pace))
}
// Let retries and backoffs run out before summing up.
const deadline = Date.now() + 15_000
for (;;) {
  await bot.idle()
  const [pending, failed] = await Promise.all([
    bot.durability!.outbox.list({ state: 'pending' }),
    bot.durability!.outbox.list({ state: 'failed' }),
  ])
  const inboxFailed = await bot.durability!.inbox.list({ state: 'failed' })
  if (pending.length + failed.length + inboxFailed.length === 0 || Date.now() > deadline) break
  await new Promise((resolve) => setTimeout(resolve, 200))
}
const metrics = bot.durability!.metrics()
await bot.stop()
say(`SUMMARY ${JSON.stringify({ metrics, sent: provider.sent.length })}`)

/** Phase `live`: the story again and again, until SIGTERM; then a clean stop and the summary. */
async function liveTraffic(): Promise<never> {
  let stopping = false
  process.once('SIGTERM', () => (stopping = true))
  say(`live traffic (pid ${process.pid}): the story's messages again every ${pace} ms until you quit`)
  for (let round = 1; !stopping; round++) {
    for (const event of liveMessages(round)) {
      if (stopping) break
      await provider.receive(event).catch((error: Error) => say(`  ! not journaled: ${error.message}`))
      await new Promise((resolve) => setTimeout(resolve, pace))
    }
  }
  const metrics = bot.durability!.metrics()
  await bot.stop()
  say(`SUMMARY ${JSON.stringify({ metrics, sent: provider.sent.length })}`)
  process.exit(0)
}

function short(value: string | null): string {
  const text = value ?? ''
  return text.length > 70 ? `${text.slice(0, 67)}…` : text
}
