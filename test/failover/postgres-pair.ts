/**
 * A PostgreSQL primary and its streaming standby for the failover test, each a private server
 * (test-utils/postgres-server.ts) on a spare port in a temp dir: the primary takes replication
 * connections, the standby is its `pg_basebackup -R` copy. What the test does to them: freeze the
 * primary's walsender (the standby stops receiving WAL), kill the primary's every process, promote
 * the standby. Both run with `fsync = on`, as a production server would.
 */
import pg from 'pg'
import { startPostgresServer, type PostgresServer } from '../../test-utils/postgres-server.js'
import { waitFor } from '../../test-utils/wait.js'

/** How long the standby may take to stream, catch up, or be promoted (a loaded machine). */
const STANDBY_TIMEOUT_MS = 120_000

/** How the primary acknowledges a commit. */
export type Replication = 'synchronous' | 'asynchronous'

/** A primary and its standby. */
export interface PostgresPair {
  primary: PostgresServer
  standby: PostgresServer
  /** A connection string for the bots on `server`. */
  url(server: PostgresServer): string
  /** Runs one statement on `server` (a fresh connection) and returns its rows. */
  query<Row>(server: PostgresServer, sql: string): Promise<Row[]>
  stop(): Promise<void>
}

const HBA = [
  'local all all trust',
  'local replication all trust',
  'host all all 127.0.0.1/32 trust',
  'host replication all 127.0.0.1/32 trust',
]

/**
 * Starts a primary and its standby and resolves once the standby streams (with a synchronous
 * standby: once the primary counts it as `sync`).
 */
export async function startPair(replication: Replication): Promise<PostgresPair> {
  const synchronous: Record<string, string> =
    replication === 'synchronous' ? { synchronous_standby_names: '*', synchronous_commit: 'on' } : {}
  const primary = await startPostgresServer({ settings: { fsync: 'on', ...synchronous }, hba: HBA })
  let standby: PostgresServer | undefined
  try {
    standby = await startPostgresServer({ settings: { fsync: 'on' }, standbyOf: primary })
  } catch (error) {
    await primary.stop()
    throw error
  }
  const pair: PostgresPair = {
    primary,
    standby,
    url: (server) => `postgres://postgres@127.0.0.1:${server.port}/postgres`,
    query: async <Row>(server: PostgresServer, sql: string) => {
      const client = new pg.Client({ host: server.dir, port: server.port, user: 'postgres', database: 'postgres' })
      client.on('error', () => {})
      await client.connect()
      try {
        return (await client.query(sql)).rows as Row[]
      } finally {
        await client.end().catch(() => {})
      }
    },
    stop: async () => {
      await Promise.all([primary.stop(), standby!.stop()])
    },
  }
  const state = replication === 'synchronous' ? 'sync' : 'async'
  await waitFor(
    async () =>
      (
        await pair.query<{ n: number }>(
          primary,
          `SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming' AND sync_state = '${state}'`,
        )
      )[0]!.n === 1,
    { timeoutMs: STANDBY_TIMEOUT_MS, intervalMs: 100, message: `the standby streaming (${state})` },
  )
  return pair
}

/**
 * Waits until the standby has flushed every WAL record the primary wrote so far, then stops the
 * primary's walsender (SIGSTOP): from now on the standby receives nothing, as a standby whose link
 * lags or broke. Freezing the primary's side leaves no WAL in the kernel's socket buffers, which a
 * frozen walreceiver would still read when thawed. Returns the walsender's pid.
 */
export async function freezeReplication(pair: PostgresPair): Promise<number> {
  const [{ lsn }] = (await pair.query<{ lsn: string }>(pair.primary, 'SELECT pg_current_wal_flush_lsn()::text AS lsn')) as [{ lsn: string }]
  const sender = await waitFor(
    async () => {
      const rows = await pair.query<{ pid: number }>(
        pair.primary,
        `SELECT pid FROM pg_stat_replication WHERE flush_lsn >= '${lsn}'::pg_lsn`,
      )
      return rows[0]?.pid
    },
    { timeoutMs: STANDBY_TIMEOUT_MS, intervalMs: 20, message: `the standby flushed up to ${lsn}` },
  )
  process.kill(sender, 'SIGSTOP')
  return sender
}

/** How many bytes of WAL the primary has flushed beyond what the standby received. */
export async function standbyLagBytes(pair: PostgresPair): Promise<number> {
  const [{ lsn }] = (await pair.query<{ lsn: string }>(pair.primary, 'SELECT pg_current_wal_flush_lsn()::text AS lsn')) as [{ lsn: string }]
  const [{ lag }] = (await pair.query<{ lag: string }>(
    pair.standby,
    `SELECT ('${lsn}'::pg_lsn - pg_last_wal_receive_lsn())::bigint::text AS lag`,
  )) as [{ lag: string }]
  return Number(lag)
}

/** How many of the primary's sessions wait for the synchronous standby to confirm their commit. */
export async function commitsWaitingForStandby(pair: PostgresPair): Promise<number> {
  const rows = await pair.query<{ n: number }>(pair.primary, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'SyncRep'`)
  return rows[0]!.n
}

/** Promotes the standby (`pg_promote`, which waits) and resolves once it accepts writes. */
export async function promoteStandby(pair: PostgresPair): Promise<void> {
  await pair.query(pair.standby, `SELECT pg_promote(true, ${STANDBY_TIMEOUT_MS / 1000})`)
  await waitFor(async () => !(await pair.query<{ r: boolean }>(pair.standby, 'SELECT pg_is_in_recovery() AS r'))[0]!.r, {
    timeoutMs: STANDBY_TIMEOUT_MS,
    intervalMs: 100,
    message: 'the standby promoted',
  })
}
