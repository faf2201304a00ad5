/**
 * A chat's order under SIGKILL, on a real backend: a bot in a child process (test/fixtures/order-kill)
 * answers bursts of messages in several chats, with ids that sort against their arrival, and a
 * poison chat whose first message kills the process on every run with two messages behind it. The
 * test kills the child at drawn moments (after a drawn provider call) and starts it again with the
 * same instanceId; the channel redelivers whatever it saw no acknowledgement for. The verdict comes
 * from the channel's own log (the oracle file): every reply once (a loss only where its send was
 * ambiguous), each chat's replies in arrival order, and the poison message dead-lettered alone.
 *
 * Scale it with ORDER_KILL_MESSAGES (messages in all, default 160) and ORDER_KILL_KILLS (default 2).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { DurabilityBackend } from '../src/core/durability/journal/backend.js'
import { inboxRecordId } from '../src/core/durability/outbox/keys.js'
import type { InboundEvent } from '../src/core/provider/provider.js'
import { tally, violations } from '../src/testing/crash-matrix/checker.js'
import type { ExpectedSend } from '../src/testing/crash-matrix/workload.js'
import { pick, seededRandom } from '../src/testing/crash-matrix/random.js'
import { runMarkedChild } from '../src/testing/process-crash/marked-child.js'
import { createOracle, readOracle } from '../src/testing/process-crash/oracle-file.js'
import type { OrderChildConfig } from '../test/fixtures/order-kill/child.js'

export interface OrderKillTarget {
  /** Absolute path of a module exporting createBackend(arg) and createStore(arg). */
  module: string
  /** Fresh storage for one run: the argument the child passes to the module, and how to open it here. */
  prepare(dir: string): { arg: unknown; open(): Promise<DurabilityBackend>; cleanup?(): Promise<void> }
}

/** What one order-kill run found. */
export interface OrderKillResult {
  messages: number
  /** Kills by the test (the poison message's own are not counted). */
  kills: number
  /** Processes started in all. */
  starts: number
  lost: number
  duplicated: number
  ambiguous: number
  /** Replies out of their chat's arrival order (ambiguous ones exempt). */
  outOfOrder: string[]
  problems: string[]
}

const CHILD = fileURLToPath(new URL('../test/fixtures/order-kill/child.ts', import.meta.url))
const LOADER = fileURLToPath(new URL('./ts-loader.mjs', import.meta.url))
const POISON_CHAT = 'poison'
/** A child that neither finishes nor dies within this time fails the run. */
const CHILD_TIMEOUT_MS = 300_000

/** `chats` chats of `perChat` messages; ids are a permutation, so they sort against arrival. */
export function orderWorkload(chats: number, perChat: number): InboundEvent[][] {
  const id = (n: number) => String((n * 7919) % 100_003)
  const bursts = Array.from({ length: chats }, (_, c) =>
    Array.from({ length: perChat }, (_, n) => ({ id: id(n), chatId: `chat-${c}`, text: `c${c} m${n}` })),
  )
  const poison = ['boom', 'after 1', 'after 2'].map((text, n) => ({ id: id(perChat + n), chatId: POISON_CHAT, text }))
  return [...bursts, poison]
}

/** Runs the child until it finishes by itself, killing it `kills` times first at drawn moments. */
export async function runOrderKill(
  target: OrderKillTarget,
  options: { messages: number; kills: number; seed: number },
): Promise<OrderKillResult> {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-order-kill-'))
  const storage = target.prepare(dir)
  try {
    const chats = orderWorkload(4, Math.ceil(options.messages / 4))
    const oracleFile = join(dir, 'oracle.ndjson')
    createOracle(oracleFile)
    const config: OrderChildConfig = { backendModule: target.module, backendArg: storage.arg, oracleFile, chats }
    const random = seededRandom(options.seed)
    const problems: string[] = []
    let kills = 0
    let starts = 0
    for (let ended = ''; ended !== 'idle';) {
      if (starts > options.kills + 12) throw new Error(`the bot never finished: ${starts} starts, the last ended ${ended}`)
      const killAfter = kills < options.kills ? pick(random, 1, Math.max(2, Math.floor(options.messages / (options.kills + 1)))) : undefined
      starts++
      ended = await runChild(config, killAfter)
      if (ended === 'killed') kills++
      else if (ended !== 'idle' && ended !== 'died') problems.push(`a child ended unexpectedly: ${ended}`)
    }
    const lines = readOracle(oracleFile)
    const ambiguous = new Map<string, number>()
    for (const line of lines) if ('ambiguous' in line) ambiguous.set(line.ambiguous, (ambiguous.get(line.ambiguous) ?? 0) + 1)
    const expected: ExpectedSend[] = chats
      .flat()
      .filter((event) => event.text !== 'boom')
      .map((event) => ({ chatId: event.chatId, text: `echo: ${event.text}`, key: `${inboxRecordId('mock', event.chatId, event.id)}:1` }))
    const accepted = lines.flatMap((line) => ('sent' in line ? [line.sent] : []))
    const counts = tally(expected, accepted, ambiguous)
    problems.push(...violations(counts, 'skip'))
    const backend = await storage.open()
    await backend.start()
    try {
      const dead = await backend.journal('default/default/order-kill/default').list('inbox', { state: 'dead', limit: 10 })
      const poison = inboxRecordId('mock', POISON_CHAT, chats.at(-1)![0]!.id)
      const deadIds = dead.map((found) => (found.record as { id: string }).id)
      if (deadIds.join() !== poison) problems.push(`dead-lettered: ${JSON.stringify(deadIds)}, where only ${poison} should be`)
    } finally {
      await backend.stop()
    }
    const messages = chats.flat().length
    return {
      messages,
      kills,
      starts,
      lost: counts.lost,
      duplicated: counts.duplicated,
      ambiguous: counts.ambiguous,
      outOfOrder: counts.outOfOrder,
      problems,
    }
  } finally {
    await storage.cleanup?.()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** 'idle', 'killed' (by us), 'died' (SIGKILL from the child itself: the poison message), or how it ended. */
async function runChild(config: OrderChildConfig, killAfter: number | undefined): Promise<string> {
  let sends = 0
  let killed = false
  const end = await runMarkedChild(['--import', LOADER, CHILD, JSON.stringify(config)], CHILD_TIMEOUT_MS, (line, kill) => {
    if (line !== 'MARK send' || killAfter === undefined || killed || ++sends !== killAfter) return
    killed = true
    kill()
  })
  if (end.code === 0 && end.idle) return 'idle'
  if (end.signal === 'SIGKILL' && !end.timedOut) return killed ? 'killed' : 'died'
  return `exit ${end.signal ?? end.code}${end.timedOut ? ' (timed out)' : ''}: ${end.stderr.trim()}`
}

/** One test per backend: the run above, its figures printed, its problems the test's failure. */
export function describeOrderKill(backendName: string, target: OrderKillTarget): void {
  const messages = Number(process.env.ORDER_KILL_MESSAGES ?? 160)
  const kills = Number(process.env.ORDER_KILL_KILLS ?? 2)
  describe(`a chat's order under SIGKILL: ${backendName}`, () => {
    it(`${messages} messages in bursts with ids against their arrival, ${kills} kills, a poison message with two behind it: each chat answered in order`, async () => {
      const result = await runOrderKill(target, { messages, kills, seed: 46 })
      console.log(
        `order under SIGKILL, ${backendName}: ${result.messages} messages, ${result.kills} kills, ${result.starts} starts, ` +
          `lost ${result.lost}, duplicated ${result.duplicated}, ambiguous ${result.ambiguous}, order violations ${result.outOfOrder.length}`,
      )
      expect(result.problems).toEqual([])
    }, 1_800_000)
  })
}
