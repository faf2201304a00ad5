/**
 * A graceful failover behind Sentinel (`SENTINEL FAILOVER`) while messages flow into a bot process
 * through a `redis+sentinel://` URL: the bot follows the primary to the promoted replica, and every
 * message is answered exactly once. Writes sent while the client switches fail as retryable, so the
 * bot refuses those messages and the channel delivers them again.
 *
 * The old primary runs with `min-replicas-to-write 1`: Sentinel promotes the replica without
 * stopping the old primary first, so without that setting whatever it acknowledges between the
 * promotion and the client's switch is discarded when it becomes a replica (docs/backends/redis.md,
 * "Sentinel"). With it, the old primary refuses writes (NOREPLICAS, retryable) from the moment the
 * replica leaves it.
 *
 * `FAILOVER_RUNS` sets the runs (default 1).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOracle } from '../../src/testing/process-crash/oracle-file.js'
import { readReplicaLines } from '../fixtures/replicas/protocol.js'
import type { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { randomPrefix, redisBinariesAvailable } from '../../test-utils/redis.js'
import { cli, startSentinelGroup } from '../../test-utils/redis-sentinel.js'
import { waitFor } from '../../test-utils/wait.js'
import { Channel } from './channel.js'
import { journalSettled, messages, report, startBot, type BotSetup } from './run-bots.js'
import { tally, type FailoverTally } from './tally.js'

const RUNS = Number(process.env.FAILOVER_RUNS ?? 1)
/** The stream runs until this many were acknowledged after the failover, at most `MESSAGES_MAX` messages. */
const AFTER_FAILOVER = 20
const MESSAGES_MAX = 600
const CHATS = 6
const CONCURRENCY = 6
/** Each sender's pause after an acknowledgement: a steady flow that is still flowing when the primary moves. */
const PAUSE_MS = 50
/** Acknowledgements before the failover starts. */
const BEFORE_FAILOVER = 20
const ACK_TIMEOUT_MS = 120_000

const available = await redisBinariesAvailable('the Redis Sentinel graceful failover test')

describe.runIf(available)('SENTINEL FAILOVER while messages flow', () => {
  const runs: Outcome[] = []
  afterAll(() => report('redis-sentinel graceful failover', runs))

  it(`the bot follows the new primary: every message answered once (${RUNS} run(s))`, async () => {
    for (let run = 0; run < RUNS; run++) runs.push(await gracefulFailover())
    for (const result of runs) {
      expect(result.acknowledged).toBe(result.messages)
      expect(result.outOfOrder).toEqual([])
      expect(result.acknowledgedAfterFailover).toBeGreaterThanOrEqual(AFTER_FAILOVER)
      expect([result.lost, result.duplicated, result.ambiguous]).toEqual([[], [], []])
    }
  }, 600_000)
})

/** One run's counts, what the channel did, and the messages acknowledged once the sentinels named the new primary. */
type Outcome = FailoverTally & { channel: Channel['counts']; acknowledgedAfterFailover: number }

async function gracefulFailover(): Promise<Outcome> {
  const group = await startSentinelGroup({ sentinels: 1 })
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-failover-'))
  let bot: ReplicaProcess | undefined
  try {
    await cli(group.primary.port, 'CONFIG', 'SET', 'min-replicas-to-write', '1')
    const prefix = randomPrefix()
    const setup: BotSetup = {
      url: group.url(prefix).replace(`?prefix=${prefix}`, ''),
      prefix,
      oracleFile: join(dir, 'oracle.ndjson'),
      slowMs: 0,
    }
    createOracle(setup.oracleFile)
    const events = messages(MESSAGES_MAX, CHATS, 'msg')
    const channel = new Channel()
    bot = channel.bot = await startBot(setup, 'bot')
    let failedOverAt: number | undefined
    const streaming = channel.stream(
      (n) => (failedOverAt !== undefined && channel.acked >= failedOverAt + AFTER_FAILOVER ? undefined : events[n]),
      {
        concurrency: CONCURRENCY,
        pauseMs: PAUSE_MS,
      },
    )
    streaming.catch(() => undefined)
    await waitFor(() => channel.acked >= BEFORE_FAILOVER, { timeoutMs: ACK_TIMEOUT_MS, message: `${BEFORE_FAILOVER} acknowledged` })
    await group.failover()
    await group.waitForPrimary(group.replica)
    failedOverAt = channel.acked
    await streaming
    await journalSettled(setup)
    await bot.stop()
    // The stream hands out a prefix of `events` (once `next` says undefined it says so for good), each acknowledged.
    const given = events.slice(0, channel.acked)
    return {
      ...tally(readReplicaLines(setup.oracleFile), given, channel),
      channel: channel.counts,
      acknowledgedAfterFailover: channel.acked - failedOverAt,
    }
  } finally {
    if (bot) (bot.signal('SIGKILL'), await bot.exited)
    await group.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
