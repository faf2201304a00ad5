/**
 * A Redis primary lost with its bot, behind Sentinel: a stream of messages into a bot process
 * through a `redis+sentinel://` URL; the replica frozen (SIGSTOP) and cut off while some arrive, so
 * they reach the primary only; then the primary and the bot killed (-9), the replica thawed and promoted by the
 * sentinels' own detection, a new bot process through the same URL, and the channel delivering again
 * whatever was not acknowledged.
 *
 * Replication is asynchronous: what the primary acknowledged in the window between the freeze and
 * the kill is gone from the promoted replica. Without `waitReplicas` this test measures it (the
 * console line and `.tmp/failover/redis-sentinel-primary-killed.json`, the figure docs/backends/redis.md
 * quotes) and asserts what must hold even so: nothing acknowledged outside the window is lost, no
 * reply goes out twice but one first sent in the window, and every message is acknowledged in the
 * end. With `waitReplicas: 1` (`GUARDS`) nothing may be lost or doubled at all: a write the
 * replica did not confirm was refused, and the channel delivered it again.
 *
 * `FAILOVER_RUNS` sets the runs (default 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Redis } from 'ioredis'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOracle } from '../../src/testing/process-crash/oracle-file.js'
import { readReplicaLines } from '../fixtures/replicas/protocol.js'
import type { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { randomPrefix, redisBinariesAvailable } from '../../test-utils/redis.js'
import { startSentinelGroup, type SentinelGroup } from '../../test-utils/redis-sentinel.js'
import { waitFor } from '../../test-utils/wait.js'
import { Channel } from './channel.js'
import { journalSettled, mark, messages, report, startBot, type BotSetup } from './run-bots.js'
import { tally, type FailoverTally } from './tally.js'

const RUNS = Number(process.env.FAILOVER_RUNS ?? 1)
const MESSAGES = 60
const CHATS = 6
const CONCURRENCY = 6
/** Acknowledgements before the replica is frozen, and while it is (the window). */
const BEFORE_FREEZE = 15
const IN_WINDOW = 20
/** A handler's time: messages acknowledged just before the kill are still unanswered then. */
const SLOW_MS = 300
const ACK_TIMEOUT_MS = 120_000
/**
 * How long the promoted primary runs with the new bot and no replica: several of the bot's leases
 * (run-bots.ts), so the claims it makes meanwhile outnumber a message's runs (`inbox.maxAttempts`, 5).
 */
const NO_REPLICA_MS = 20_000

/**
 * How the bot's journal writes are confirmed; `expectNoLoss` for a guard that confirms them on a
 * replica. With `waitReplicas` nothing is acknowledged while the replica is cut off: the window is
 * then `IN_WINDOW` refusals (the channel delivers those messages again) instead of acknowledgements.
 */
const GUARDS: { name: string; urlParams: string; expectNoLoss: boolean }[] = [
  { name: 'without waitReplicas', urlParams: '', expectNoLoss: false },
  { name: 'with waitReplicas 1', urlParams: 'waitReplicas=1', expectNoLoss: true },
]

const available = await redisBinariesAvailable('the Redis Sentinel failover test (a primary killed with its bot)')

describe.runIf(available).each(GUARDS)('Sentinel promotes the replica after the primary and the bot are killed ($name)', (guard) => {
  const runs: (FailoverTally & { channel: Channel['counts'] })[] = []
  afterAll(() => report(`redis-sentinel primary killed ${guard.name}`, runs))

  it(`loses nothing acknowledged outside the window and sends no reply twice outside it (${RUNS} run(s))`, async () => {
    for (let run = 0; run < RUNS; run++) runs.push(await primaryKilled(guard))
    for (const result of runs) {
      expect(result.acknowledged).toBe(MESSAGES)
      expect(result.lostOutsideWindow).toEqual([])
      expect(result.duplicatedOutsideWindow).toEqual([])
      expect(result.outOfOrder).toEqual([])
      if (guard.expectNoLoss) expect([result.lost, result.duplicated]).toEqual([[], []])
    }
  }, 600_000)
})

async function primaryKilled(guard: (typeof GUARDS)[number]): Promise<FailoverTally & { channel: Channel['counts'] }> {
  const group: SentinelGroup = await startSentinelGroup({ sentinels: 3, flags: ['--appendonly', 'yes', '--appendfsync', 'always'] })
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-failover-'))
  const bots: ReplicaProcess[] = []
  try {
    const prefix = randomPrefix()
    const url = group.url(prefix).replace(`?prefix=${prefix}`, guard.urlParams ? `?${guard.urlParams}` : '')
    const setup: BotSetup = { url, prefix, oracleFile: join(dir, 'oracle.ndjson'), slowMs: SLOW_MS }
    createOracle(setup.oracleFile)
    const events = messages(MESSAGES, CHATS, 'slow')
    const channel = new Channel()
    bots.push((channel.bot = await startBot(setup, 'first')))
    // Held from the BEFORE_FREEZE-th acknowledgement until the window is set up: messages are left for it.
    channel.holdAfter(BEFORE_FREEZE)
    const streaming = channel.stream((n) => events[n], { concurrency: CONCURRENCY })
    streaming.catch(() => undefined)

    await waitFor(() => channel.acked >= BEFORE_FREEZE, { timeoutMs: ACK_TIMEOUT_MS, message: `${BEFORE_FREEZE} acknowledged` })
    mark(setup, 'frozen')
    await partitionReplica(group)
    channel.release()
    const frozenAt = guard.expectNoLoss ? channel.counts.refused : channel.acked
    await waitFor(() => (guard.expectNoLoss ? channel.counts.refused : channel.acked) >= frozenAt + IN_WINDOW, {
      timeoutMs: ACK_TIMEOUT_MS,
      message: `${IN_WINDOW} ${guard.expectNoLoss ? 'refused' : 'acknowledged'} in the window`,
    })
    bots[0]!.signal('SIGKILL')
    await group.primary.kill()
    await bots[0]!.exited
    // After the kill: every line of the first bot (an acknowledgement just before it included) is in the window.
    mark(setup, 'killed')
    group.thaw(group.replica)
    await group.waitForPrimary(group.replica)
    // The new bot starts on a primary with no replica yet: with waitReplicas its writes land there
    // unconfirmed and fail, claims of the first bot's messages included, for a few of its leases.
    bots.push((channel.bot = await startBot(setup, 'second')))
    await pause(NO_REPLICA_MS)
    // Then the old primary comes back and the sentinels make it the new primary's replica (its
    // writes from the window discarded).
    await group.primary.restart()
    await streaming
    await journalSettled(setup)
    await channel.bot.stop()
    return { ...tally(readReplicaLines(setup.oracleFile), events, channel), channel: channel.counts }
  } finally {
    for (const bot of bots) (bot.signal('SIGCONT'), bot.signal('SIGKILL'))
    await Promise.all(bots.map((bot) => bot.exited))
    await group.stop()
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true })
    else console.log('kept', dir)
  }
}

/**
 * Every write the primary acknowledged so far is on the replica (a write of our own, then WAIT for
 * one replica); then the replica is frozen and the primary drops its link, as its `repl-timeout`
 * would a while later: what the primary acknowledges from now on never reaches the replica (a
 * freeze alone would not do: the kernel would hold the stream for the replica until it thaws).
 */
async function partitionReplica(group: SentinelGroup): Promise<void> {
  const admin = new Redis({ host: '127.0.0.1', port: group.primary.port, lazyConnect: true })
  try {
    await admin.connect()
    await admin.set('failover-test:replicated', String(Date.now()))
    const replicas = await admin.wait(1, 30_000)
    if (replicas < 1) throw new Error('the replica did not confirm the writes before the freeze within 30 s')
    group.freeze(group.replica)
    await admin.client('KILL', 'TYPE', 'replica')
  } finally {
    admin.disconnect()
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
