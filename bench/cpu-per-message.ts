/**
 * Process CPU per message on MemoryDurability against the same bot without the `durability` key:
 * `clients` chats, each sending its next message once the last one was answered, as `botmesh
 * bench` does (a client that went on once its message was admitted would keep the bot at its
 * in-flight limit, and measure the wait there); every reply counted. A long run shows costs that
 * grow with the journal or a backlog, which the 3,000-message runs of `npm run bench` do not
 * reach. Prints the median of the rounds, each run alternating.
 * Run: node --import ./test-utils/ts-loader.mjs bench/cpu-per-message.ts [messages=40000] [clients=8] [rounds=3]
 */
import { Bot, MemoryDurability, TEXT } from '../src/core/index.js'
import { MockProvider } from '../src/core/testing/index.js'
import type { OutboundContent, ProviderSendResult } from '../src/core/index.js'

/** A MockProvider that tells a chat's client when a reply to it went out. */
class AnsweringProvider extends MockProvider {
  readonly #waiting = new Map<string, () => void>()

  /** Resolves at the next send to `chatId`. */
  answered(chatId: string): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(chatId, resolve))
  }

  override async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const result = await super.send(chatId, content)
    const resolve = this.#waiting.get(chatId)
    this.#waiting.delete(chatId)
    resolve?.()
    return result
  }
}

const [messages, clients, rounds] = [40_000, 8, 3].map((fallback, n) => Number(process.argv[2 + n] ?? fallback)) as [number, number, number]

async function cpuPerMessage(durable: boolean): Promise<number> {
  const provider = new AnsweringProvider()
  const bot = new Bot({ provider, durability: durable ? { backend: new MemoryDurability(), instanceId: 'bench' } : undefined })
  bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  await bot.start()
  const before = process.cpuUsage()
  let next = 0
  const client = async (chat: number) => {
    for (let n = next++; n < messages; n = next++) {
      const answered = provider.answered(`c${chat}`)
      await provider.receive({ id: `m${n}`, chatId: `c${chat}`, text: `hello ${n}` })
      await answered
    }
  }
  await Promise.all(Array.from({ length: clients }, (_, chat) => client(chat)))
  await bot.idle()
  const used = process.cpuUsage(before)
  if (provider.sent.length !== messages) throw new Error(`expected ${messages} replies, got ${provider.sent.length}`)
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
