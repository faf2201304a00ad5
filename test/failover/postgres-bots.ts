/**
 * The bot processes of the PostgreSQL failover test: the replica fixture (test/fixtures/replicas/
 * replica.ts: it answers `re <record id>`, after `slowMs` for a text starting with "slow") on the
 * PostgreSQL backend fixture, pointed at whichever server is the primary now, as a DNS name or a
 * virtual IP moved to the promoted standby would point it; a probe that tells when the journal has
 * settled; and the report of the counts (a console line and a JSON file under `.tmp/failover/`, or
 * `FAILOVER_REPORT_DIR`).
 */
import { fileURLToPath } from 'node:url'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { appendReplicaLine } from '../fixtures/replicas/protocol.js'
import { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { BOT_ID, journalSettled as settled, writeRuns } from './run-report.js'
import type { FailoverTally } from './tally.js'

const BACKEND_MODULE = fileURLToPath(new URL('../fixtures/process-crash/postgres-backend.ts', import.meta.url))
const TABLE_PREFIX = 'failover_'
/** inbox and outbox leases: a killed bot's unfinished work passes to its successor after this. */
const LEASE_MS = 3_000

/** What one test's bots write the facts to. */
export interface BotSetup {
  oracleFile: string
  slowMs: number
}

/** Starts a bot process named `name` on the server at `url`; every bot of a test is one deployment (instance id `bot`). */
export function startBot(setup: BotSetup, name: string, url: string): Promise<ReplicaProcess> {
  return ReplicaProcess.start({
    name,
    instanceId: 'bot',
    botId: BOT_ID,
    backendModule: BACKEND_MODULE,
    backendArg: { connectionString: url, tablePrefix: TABLE_PREFIX },
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

/** Resolves once the journal at `url` has settled. */
export function journalSettled(url: string): Promise<void> {
  const quiet = { error: () => {}, warn: () => {}, info: () => {} }
  return settled(new PostgresDurability({ connectionString: url, tablePrefix: TABLE_PREFIX, logger: quiet }))
}

/** One run's counts, with what the standby lacked when the primary died. */
export interface PostgresFailoverRun extends FailoverTally {
  /** WAL bytes the primary had flushed and the standby had not received, just before the kill. */
  lagBytes: number
}

/** The console line and the JSON file of a variant's runs. */
export function report(name: string, runs: readonly PostgresFailoverRun[]): void {
  const each = runs.map(
    (run) =>
      `acknowledged ${run.acknowledged} (in the window ${run.acknowledgedInWindow}), lost ${run.lost.length}, ` +
      `duplicated ${run.duplicated.length}, ambiguous ${run.ambiguous.length}, standby behind by ${run.lagBytes} B`,
  )
  console.log(`${name}: ${runs.length} run(s)\n${each.map((line, n) => `  run ${n + 1}: ${line}`).join('\n')}`)
  writeRuns(name, runs)
}
