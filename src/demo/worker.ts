/**
 * One run of the demo bot, in its own process so the demo can kill it with SIGKILL and start it
 * again: `worker.js <file> <phase>`. It prints what happens, one line per event, and at the end of
 * a run that is not killed, a `SUMMARY <json>` line.
 */
import { SQLiteStore } from '../backends/sqlite/index.js'
import { textOf } from '../core/hooks.js'
import { demoMessages, demoProvider } from './channel.js'
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
say(phase === '1' ? `bot started (pid ${process.pid}) on ${file}` : `bot restarted (pid ${process.pid}) with the same instanceId: replaying what the crash left`)
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
  say(`  → ${event.chatId}: ${event.text ?? `[${event.media?.type}]`}${redelivered ? ' (redelivered by the channel: journaled before, not run twice)' : ''}`)
  if (phase === '1') await new Promise((resolve) => setTimeout(resolve, pace))
}
// Let retries and backoffs run out before summing up.
const deadline = Date.now() + 15_000
for (;;) {
  await bot.idle()
  const [pending, failed] = await Promise.all([bot.durability!.outbox.list({ state: 'pending' }), bot.durability!.outbox.list({ state: 'failed' })])
  const inboxFailed = await bot.durability!.inbox.list({ state: 'failed' })
  if (pending.length + failed.length + inboxFailed.length === 0 || Date.now() > deadline) break
  await new Promise((resolve) => setTimeout(resolve, 200))
}
const metrics = bot.durability!.metrics()
await bot.stop()
say(`SUMMARY ${JSON.stringify({ metrics, sent: provider.sent.length })}`)

function short(value: string | null): string {
  const text = value ?? ''
  return text.length > 70 ? `${text.slice(0, 67)}…` : text
}
