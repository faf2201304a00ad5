/**
 * What both failover tests share: a bot process on the Redis backend fixture through a
 * `redis+sentinel://` URL (test/fixtures/replicas/replica.ts: it answers `re <record id>`, after
 * `slowMs` for a text starting with "slow"), a probe on the same URL that tells when the journal has
 * settled, the oracle file with the test's marks, and the report of the counts (a console line and
 * a JSON file under `.tmp/failover/`, or `FAILOVER_REPORT_DIR`).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RedisDurability } from '../../src/backends/redis/index.js'
import type { InboundEvent } from '../../src/core/provider.js'
import { appendReplicaLine } from '../fixtures/replicas/protocol.js'
import { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { waitFor } from '../../test-utils/wait.js'
import type { FailoverTally } from './tally.js'

const BACKEND_MODULE = fileURLToPath(new URL('../fixtures/process-crash/redis-backend.ts', import.meta.url))
export const BOT_ID = 'failover'
const SCOPE = `default/default/${BOT_ID}/default`
/** inbox and outbox leases: a killed bot's unfinished work passes to its successor after this. */
const LEASE_MS = 3_000
/** How long the journal may take to settle after the last acknowledgement. */
const SETTLE_TIMEOUT_MS = 120_000

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

/**
 * Resolves once the journal has settled: no message waiting or running, no send waiting or in
 * flight (read through the sentinels, so it follows a failover too).
 */
export async function journalSettled(setup: BotSetup): Promise<void> {
  const probe = new RedisDurability({ url: setup.url, prefix: setup.prefix, logger: { error: () => {}, warn: () => {}, info: () => {} } })
  try {
    await waitFor(
      async () => {
        await probe.start()
        const journal = probe.journal(SCOPE)
        const [inbox, outbox] = await Promise.all([journal.count('inbox'), journal.count('outbox')])
        const busy = ['pending', 'processing', 'failed'].some((state) => (inbox[state] ?? 0) > 0)
        return !busy && !['pending', 'sending', 'failed'].some((state) => (outbox[state] ?? 0) > 0)
      },
      { timeoutMs: SETTLE_TIMEOUT_MS, intervalMs: 200, message: 'no message or send left waiting or running' },
    )
  } finally {
    await probe.stop()
  }
}

/** The console line and the JSON file of a test's runs. */
export function report(name: string, runs: readonly FailoverTally[]): void {
  const sum = (pick: (run: FailoverTally) => number) => runs.reduce((total, run) => total + pick(run), 0)
  console.log(
    `${name}: ${runs.length} run(s): acknowledged ${sum((run) => run.acknowledged)} (in the window ${sum((run) => run.acknowledgedInWindow)}), ` +
      `lost ${sum((run) => run.lost.length)}, duplicated ${sum((run) => run.duplicated.length)}, ambiguous ${sum((run) => run.ambiguous.length)}` +
      ` (outside the window: lost ${sum((run) => run.lostOutsideWindow.length)}, duplicated ${sum((run) => run.duplicatedOutsideWindow.length)})`,
  )
  const dir = process.env.FAILOVER_REPORT_DIR ?? fileURLToPath(new URL('../../.tmp/failover/', import.meta.url))
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.json`), `${JSON.stringify({ name, runs }, null, 2)}\n`)
}
