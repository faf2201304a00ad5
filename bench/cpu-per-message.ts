/**
 * Process CPU per message on MemoryDurability against the same bot without the `durability` key:
 * `clients` chats, each sending its next message once the last one was answered, on `botmesh
 * bench`'s provider and loop (a client that went on once its message was admitted would keep the
 * bot at its in-flight limit, and measure the wait there). A long run shows costs that grow with
 * the journal or a backlog, which the 3,000-message runs of `npm run bench` do not reach. Prints
 * the median of the rounds, each run alternating.
 * Run: node --import ./test-utils/ts-loader.mjs bench/cpu-per-message.ts [messages=40000] [clients=8] [rounds=3]
 */
import { closedLoop } from '../src/cli/services/closed-loop.js'
import { BenchProvider } from '../src/cli/services/bench-provider.js'
import { Bot, MemoryDurability, TEXT } from '../src/core/index.js'

const [messages, clients, rounds] = [40_000, 8, 3].map((fallback, n) => Number(process.argv[2 + n] ?? fallback)) as [number, number, number]

async function cpuPerMessage(durable: boolean): Promise<number> {
  const provider = new BenchProvider()
  const bot = new Bot({ provider, durability: durable ? { backend: new MemoryDurability(), instanceId: 'bench' } : undefined })
  bot.when(TEXT, (ctx) => ctx.reply(`re:${ctx.message.text}`))
  await bot.start()
  const before = process.cpuUsage()
  // Every message waits for its own reply, so the loop ends once each was answered.
  await closedLoop(clients, messages, async (n, client) => {
    const replied = provider.replyTo(`m${n}`)
    await provider.receive({ id: `m${n}`, chatId: `c${client}`, text: `m${n}` })
    await replied
  })
  await bot.idle()
  const used = process.cpuUsage(before)
  await bot.stop()
  return (used.user + used.system) / messages
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
await cpuPerMessage(false)
await cpuPerMessage(true)
const runs = { without: [] as number[], durable: [] as number[] }
for (let round = 0; round < rounds; round++) {
  runs.without.push(await cpuPerMessage(false))
  runs.durable.push(await cpuPerMessage(true))
}
const [durable, without] = [median(runs.durable), median(runs.without)]
console.log(
  `node ${process.version}, ${messages} messages, ${clients} clients: ${durable.toFixed(1)} µs of CPU a message with durability, ` +
    `${without.toFixed(1)} without (${(durable / without).toFixed(2)}×)`,
)
