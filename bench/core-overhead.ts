/**
 * The cost of durability on MemoryDurability vs no `durability` key: handled messages/s, each with
 * one reply, same run, same provider. Run: node --import ./test-utils/ts-loader.mjs bench/core-overhead.ts [messages]
 */
import { Bot, MemoryDurability, TEXT } from '../src/core/index.js'
import { MockProvider } from '../src/testing/index.js'

const messages = Number(process.argv[2] ?? 20_000)
const chats = 50

async function run(durable: boolean): Promise<number> {
  const provider = new MockProvider()
  const bot = new Bot({ provider, durability: durable ? { backend: new MemoryDurability(), instanceId: 'bench' } : undefined })
  bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  await bot.start()
  const started = performance.now()
  for (let n = 0; n < messages; n++) await provider.receive({ id: `m${durable}${n}`, chatId: `c${n % chats}`, text: `hello ${n}` })
  await bot.idle()
  const seconds = (performance.now() - started) / 1000
  if (provider.sent.length !== messages) throw new Error(`expected ${messages} replies, got ${provider.sent.length}`)
  await bot.stop()
  return messages / seconds
}

await run(false)
await run(true)
const results: Record<string, number[]> = { none: [], memory: [] }
for (let round = 0; round < 3; round++) {
  results.none!.push(await run(false))
  results.memory!.push(await run(true))
}
const best = (xs: number[]) => Math.max(...xs)
console.log(`messages: ${messages} (one reply each), best of 3 rounds`)
console.log(`no durability:     ${best(results.none!).toFixed(0)} msg/s`)
console.log(`MemoryDurability:  ${best(results.memory!).toFixed(0)} msg/s`)
console.log(`time per message ratio (memory / none): ${(best(results.none!) / best(results.memory!)).toFixed(2)}x`)
