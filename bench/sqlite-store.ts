/**
 * The README's setup against the journal alone: an echo bot on `SQLiteStore` with
 * `store.durability()` (journal, message log and checkpoints in one file), beside the same bot with
 * the SQLite journal and the in-memory store (what `botmesh bench --backend sqlite` measures).
 * `clients` chats in a closed loop, each sending its next message once the last reply went out.
 * Prints the median msg/s and CPU µs a message of the rounds, the two setups alternating.
 * Run: node --import ./test-utils/ts-loader.mjs bench/sqlite-store.ts [messages=3000] [clients=8] [rounds=3]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQLiteDurability, SQLiteStore } from '../src/backends/sqlite/index.js'
import { BenchProvider } from '../src/cli/services/bench-provider.js'
import { Bot, TEXT } from '../src/core/index.js'

const [messages, clients, rounds] = [3_000, 8, 3].map((fallback, n) => Number(process.argv[2 + n] ?? fallback)) as [number, number, number]

type Setup = 'store and journal' | 'journal alone'

async function run(setup: Setup): Promise<{ perSecond: number; cpuMicros: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-sqlite-store-'))
  const file = join(dir, 'bot.db')
  const provider = new BenchProvider()
  const store = setup === 'store and journal' ? new SQLiteStore({ file }) : undefined
  const backend = store ? store.durability() : new SQLiteDurability({ file })
  const bot = new Bot({ provider, botId: 'bench', ...(store && { store }), durability: { backend, instanceId: 'bench-1' } })
  bot.when(TEXT, (ctx) => ctx.reply(`re:${ctx.message.text}`))
  await bot.start()
  try {
    let next = 0
    const client = async (chat: number) => {
      for (let n = next++; n < messages; n = next++) {
        const reply = provider.replyTo(`m${n}`)
        await provider.receive({ id: `m${n}`, chatId: `chat-${chat}`, text: `m${n}` })
        await reply
      }
    }
    const started = performance.now()
    const cpu = process.cpuUsage()
    await Promise.all(Array.from({ length: clients }, (_, chat) => client(chat)))
    const seconds = (performance.now() - started) / 1_000
    const used = process.cpuUsage(cpu)
    await bot.idle()
    return { perSecond: messages / seconds, cpuMicros: (used.user + used.system) / messages }
  } finally {
    await bot.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const results: Record<Setup, { perSecond: number[]; cpuMicros: number[] }> = {
  'store and journal': { perSecond: [], cpuMicros: [] },
  'journal alone': { perSecond: [], cpuMicros: [] },
}
for (let round = 0; round < rounds; round++) {
  for (const setup of Object.keys(results) as Setup[]) {
    const { perSecond, cpuMicros } = await run(setup)
    results[setup].perSecond.push(perSecond)
    results[setup].cpuMicros.push(cpuMicros)
  }
}
for (const [setup, figures] of Object.entries(results)) {
  console.log(
    `${setup.padEnd(18)} ${Math.round(median(figures.perSecond))} msg/s, ${Math.round(median(figures.cpuMicros))} µs of CPU a message ` +
      `(node ${process.version}, ${messages} messages, ${clients} clients, median of ${rounds})`,
  )
}
