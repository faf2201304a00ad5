/**
 * What both failover tests share: a bot process on the Redis backend fixture through a
 * `redis+sentinel://` URL (test/fixtures/replicas/replica.ts: it answers `re <record id>`, after
 * `slowMs` for a text starting with "slow"), a probe on the same URL that tells when the journal has
 * settled, the oracle file with the test's marks, and the report of the counts (a console line and
 * a JSON file under `.tmp/failover/`, or `FAILOVER_REPORT_DIR`).
 */
import { fileURLToPath } from 'node:url'
import { RedisDurability } from '../../src/backends/redis/index.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { appendReplicaLine } from '../fixtures/replicas/protocol.js'
import { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { BOT_ID, journalSettled as settled, writeRuns } from './run-report.js'
import type { FailoverTally } from './tally.js'

const BACKEND_MODULE = fileURLToPath(new URL('../fixtures/process-crash/redis-backend.ts', import.meta.url))
/** inbox and outbox leases: a killed bot's unfinished work passes to its successor after this. */
const LEASE_MS = 3_000

/** Where one test's bots connect, and what they write the facts to. */
export interface BotSetup {
  /** A `redis+sentinel://` URL without a prefix (the fixture takes it apart), with any extra parameters. */
  url: string
  prefix: string
  oracleFile: string
  slowMs: number
}

/** Starts a bot process named `name`; every bot of a test is one deployment (instance id `bot`). */
export function startBot(setup: BotSetup, name: string): Promise<ReplicaProcess> {
  return ReplicaProcess.start({
    name,
    instanceId: 'bot',
    botId: BOT_ID,
    backendModule: BACKEND_MODULE,
    backendArg: { url: setup.url, prefix: setup.prefix },
    oracleFile: setup.oracleFile,
    leaseMs: LEASE_MS,
    pollMs: 100,
    slowMs: setup.slowMs,
  })
}

/** Writes a mark of the test between the bots' lines of the oracle. */
export function mark(setup: BotSetup, name: string): void {
  appendReplicaLine(setup.oracleFile, { mark: name })
}

/** `count` messages over `chats` chats, each text starting with `text`. */
export function messages(count: number, chats: number, text: string): InboundEvent[] {
  return Array.from({ length: count }, (_, n) => ({ id: `m${n}`, chatId: `chat-${n % chats}`, text: `${text} m${n}` }))
}

/** Resolves once the journal has settled (read through the sentinels, so it follows a failover too). */
export function journalSettled(setup: BotSetup): Promise<void> {
  const quiet = { error: () => {}, warn: () => {}, info: () => {} }
  return settled(new RedisDurability({ url: setup.url, prefix: setup.prefix, logger: quiet }))
}

/** The console line and the JSON file of a test's runs. */
export function report(name: string, runs: readonly FailoverTally[]): void {
  const sum = (pick: (run: FailoverTally) => number) => runs.reduce((total, run) => total + pick(run), 0)
  console.log(
    `${name}: ${runs.length} run(s): acknowledged ${sum((run) => run.acknowledged)} (in the window ${sum((run) => run.acknowledgedInWindow)}), ` +
      `lost ${sum((run) => run.lost.length)}, duplicated ${sum((run) => run.duplicated.length)}, ambiguous ${sum((run) => run.ambiguous.length)}` +
      ` (outside the window: lost ${sum((run) => run.lostOutsideWindow.length)}, duplicated ${sum((run) => run.duplicatedOutsideWindow.length)})` +
      `, out of their chat's order ${sum((run) => run.outOfOrder.length)}`,
  )
  writeRuns(name, runs)
}
