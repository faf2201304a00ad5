/**
 * The files of src/ that run on one message's main path (issue 40's "files that run on one message's
 * main path (memory)"): a durable bot on MemoryDurability, warmed with 50 messages, then V8's precise
 * coverage around one message, its reply and its settle (bot.start's, the warm-up's and sweeps' calls
 * are not counted). A
 * file counts when one of its named functions ran. The engine is the one the bot gets by default
 * (BOTMESH_ENGINE=message or steps chooses another).
 * Run: node --import ./test-utils/ts-loader.mjs bench/main-path-files.ts
 */
import { Session } from 'node:inspector/promises'
import { BenchProvider } from '../src/cli/services/bench-provider.js'
import { Bot, MemoryDurability, TEXT } from '../src/core/index.js'

const WARM_UP_MESSAGES = 50
/** How long the measured message's settle is given after its reply, with no sweep due meanwhile. */
const SETTLE_WAIT_MS = 50

const provider = new BenchProvider()
const bot = new Bot({ provider, durability: { backend: new MemoryDurability(), instanceId: 'bench' } })
bot.when(TEXT, (ctx) => ctx.reply(`re:${ctx.message.text}`))
await bot.start()

/** One message of its own chat, answered. BenchProvider matches a reply by the message's text. */
async function message(id: string, chatId: string): Promise<void> {
  const replied = provider.replyTo(id)
  await provider.receive({ id, chatId, text: id })
  await replied
}

for (let n = 0; n < WARM_UP_MESSAGES; n++) await message(`w${n}`, 'warm')
await bot.idle()

const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
await session.post('Profiler.takePreciseCoverage') // from here on: counts since this call
await message('m1', 'measured')
// Its settle lands right after the reply; bot.idle() would add a sweep, which is not the message's path.
await new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS))
const { result } = await session.post('Profiler.takePreciseCoverage')
session.disconnect()
await bot.stop()

const ran = new Map<string, string[]>()
for (const script of result) {
  const at = script.url.indexOf('/src/')
  if (at < 0) continue
  const functions = script.functions.filter((f) => f.functionName !== '' && f.ranges[0]!.count > 0).map((f) => f.functionName)
  if (functions.length > 0) ran.set(script.url.slice(at + 1), functions)
}
const files = [...ran.keys()].sort()
for (const file of files) console.log(`${file}: ${ran.get(file)!.join(', ')}`)
const core = files.filter((file) => file.startsWith('src/core/'))
console.log(`\n${files.length} files of src/ ran for one message, ${core.length} of them in src/core (node ${process.version})`)
