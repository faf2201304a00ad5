/**
 * A PostgreSQL primary lost with its bot, and its streaming standby promoted: a stream of messages
 * into a bot process on the primary; the primary's walsender frozen (SIGSTOP) while some arrive, so
 * the standby receives nothing more; then the primary (every process of it) and the bot killed
 * (-9), the standby promoted (`pg_promote`), a new bot process pointed at the standby's port (as a
 * DNS name or a virtual IP moved to it would), and the channel delivering again whatever was not
 * acknowledged.
 *
 * With a synchronous standby (`synchronous_standby_names = '*'`, `synchronous_commit = on`) a
 * commit returns only once the standby has flushed it: during the freeze the bot's journal writes
 * wait, nothing new is acknowledged, and after the failover every acknowledged message is answered,
 * a reply sent twice only where the kill left its send unrecorded (the window), counted. With
 * asynchronous replication what the primary acknowledged during the freeze is missing from the
 * standby: the test reports how many acknowledged messages were never answered (the console line
 * and `.tmp/failover/postgres-*.json`, the figures docs/replicated-stores.md quotes) and asserts
 * only what holds even so: nothing acknowledged outside the window is lost or answered twice.
 *
 * `FAILOVER_RUNS` sets the runs of each variant (default 1).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOracle } from '../../src/testing/process-crash/oracle-file.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { readReplicaLines } from '../fixtures/replicas/protocol.js'
import type { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { postgresBinariesAvailable } from '../../test-utils/postgres-server.js'
import { waitFor } from '../../test-utils/wait.js'
import { Channel } from './channel.js'
import { journalSettled, mark, report, startBot, type BotSetup, type PostgresFailoverRun } from './postgres-bots.js'
import {
  commitsWaitingForStandby,
  freezeReplication,
  promoteStandby,
  standbyLagBytes,
  startPair,
  type PostgresPair,
  type Replication,
} from './postgres-pair.js'
import { tally } from './tally.js'

const RUNS = Number(process.env.FAILOVER_RUNS ?? 1)
const MESSAGES = 60
const CHATS = 6
const CONCURRENCY = 6
/** Acknowledgements before the walsender is frozen; with async replication, acknowledgements while it is (the window). */
const BEFORE_FREEZE = 15
const IN_WINDOW = 15
/** A handler's time: messages acknowledged just before the kill are still unanswered then. */
const SLOW_MS = 300
const ACK_TIMEOUT_MS = 120_000

const available = postgresBinariesAvailable('the PostgreSQL failover test (a primary killed with its bot, its standby promoted)', [
  'initdb',
  'pg_basebackup',
  'postgres',
])

describe.runIf(available).each<{ replication: Replication }>([{ replication: 'synchronous' }, { replication: 'asynchronous' }])(
  'PostgreSQL: the primary and the bot killed, the $replication standby promoted',
  ({ replication }) => {
    const runs: PostgresFailoverRun[] = []
    afterAll(() => report(`postgres ${replication} standby primary killed`, runs))

    const claim =
      replication === 'synchronous'
        ? 'every acknowledged message answered, twice only in the window'
        : 'nothing acknowledged outside the window lost or answered twice; the loss inside it reported'
    it(`${claim} (${RUNS} run(s))`, async () => {
      for (let run = 0; run < RUNS; run++) runs.push(await primaryKilled(replication))
      for (const result of runs) {
        // The freeze held: the primary had WAL the standby never received when it died.
        expect(result.lagBytes).toBeGreaterThan(0)
        expect(result.acknowledged).toBe(MESSAGES)
        expect(result.lostOutsideWindow).toEqual([])
        expect(result.duplicatedOutsideWindow).toEqual([])
        expect(result.outOfOrder).toEqual([])
        if (replication === 'synchronous') expect(result.lost).toEqual([])
      }
    }, 900_000)
  },
)

async function primaryKilled(replication: Replication): Promise<PostgresFailoverRun> {
  const pair = await startPair(replication)
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-pg-failover-'))
  const bots: ReplicaProcess[] = []
  try {
    const setup: BotSetup = { oracleFile: join(dir, 'oracle.ndjson'), slowMs: SLOW_MS }
    createOracle(setup.oracleFile)
    const events: InboundEvent[] = Array.from({ length: MESSAGES }, (_, n) => ({
      id: `m${n}`,
      chatId: `chat-${n % CHATS}`,
      text: `slow m${n}`,
    }))
    const channel = new Channel()
    bots.push((channel.bot = await startBot(setup, 'first', pair.url(pair.primary))))
    // Held from the BEFORE_FREEZE-th acknowledgement until the window is set up: messages are left for it.
    channel.holdAfter(BEFORE_FREEZE)
    const streaming = channel.stream((n) => events[n], { concurrency: CONCURRENCY })
    streaming.catch(() => undefined)

    await waitFor(() => channel.acked >= BEFORE_FREEZE, { timeoutMs: ACK_TIMEOUT_MS, message: `${BEFORE_FREEZE} acknowledged` })
    // The mark first: whatever was acknowledged before it is on the standby before the freeze.
    mark(setup, 'frozen')
    await freezeReplication(pair)
    channel.release()
    await messagesInTheWindow(replication, pair, channel)
    const lagBytes = await standbyLagBytes(pair)
    bots[0]!.signal('SIGKILL')
    await pair.primary.kill()
    await bots[0]!.exited
    // The mark once the bot is gone: an acknowledgement it wrote while the kill was on its way is in the window.
    mark(setup, 'killed')
    await promoteStandby(pair)
    bots.push((channel.bot = await startBot(setup, 'second', pair.url(pair.standby))))
    await streaming
    await journalSettled(pair.url(pair.standby))
    await channel.bot.stop()
    return { ...tally(readReplicaLines(setup.oracleFile), events, channel), lagBytes }
  } finally {
    for (const bot of bots) (bot.signal('SIGCONT'), bot.signal('SIGKILL'))
    await Promise.all(bots.map((bot) => bot.exited))
    await pair.stop()
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true })
    else console.log('kept', dir)
  }
}

/**
 * Lets messages arrive while the standby receives nothing. Asynchronous: until `IN_WINDOW` more
 * are acknowledged. Synchronous: nothing new can be acknowledged (each journal write waits for the
 * standby), so until the bot's commits wait for it.
 */
async function messagesInTheWindow(replication: Replication, pair: PostgresPair, channel: Channel): Promise<void> {
  if (replication === 'asynchronous') {
    const frozenAt = channel.acked
    await waitFor(() => channel.acked >= frozenAt + IN_WINDOW, {
      timeoutMs: ACK_TIMEOUT_MS,
      message: `${IN_WINDOW} acknowledged in the window`,
    })
  } else {
    await waitFor(async () => (await commitsWaitingForStandby(pair)) > 0, {
      timeoutMs: ACK_TIMEOUT_MS,
      intervalMs: 50,
      message: 'commits waiting for the frozen standby',
    })
  }
  // WAL the walsender had written before its freeze still reaches the standby from the socket's
  // buffer (a synchronous commit then waits for the frozen walsender, not for the WAL): the window
  // is open once the primary holds WAL the standby never received.
  await waitFor(async () => (await standbyLagBytes(pair)) > 0, {
    timeoutMs: ACK_TIMEOUT_MS,
    intervalMs: 50,
    message: 'WAL on the primary that the frozen standby never received',
  })
}
