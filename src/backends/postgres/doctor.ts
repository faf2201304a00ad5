/**
 * `botmesh doctor` on PostgreSQL: opens a pool of its own (no journal table is opened or created,
 * so it works on a database that holds none yet), reads the settings as the backend's sessions see
 * them (a role's, a database's or the URL's `options` included), judges them (doctor-checks.ts)
 * and lets go. Each check stands alone: one the server refuses is a warn line.
 */
import { clockCheck, doctorCheck, guarded, isLoopback, type DoctorCheck, type DoctorLimits } from '../common/doctor.js'
import { PostgresConnection } from './connection.js'
import {
  fullPageWritesCheck,
  persistenceChecks,
  postgresTlsCheck,
  postgresVersionCheck,
  replicationCheck,
  type StandbyRow,
} from './doctor-checks.js'
import { PERSISTENCE_SETTINGS_SQL, type PersistenceSettings } from './persistence-check.js'

/** Where to look and what the operator set (the options of the backend URL). */
export interface PostgresDoctorOptions {
  connectionString: string
  requirePersistence: boolean
  connectTimeoutMs?: number
  limits: DoctorLimits
}

/** The server's other settings, in one row. */
const SERVER_SQL = `SELECT current_setting('full_page_writes') AS full_page_writes,
  current_setting('server_version') AS server_version,
  current_setting('server_version_num')::int AS server_version_num,
  current_setting('synchronous_standby_names') AS synchronous_standby_names,
  pg_is_in_recovery() AS in_recovery,
  coalesce((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false) AS ssl,
  (SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid()) AS ssl_version`

/** The standbys streaming from this server (bounded by its max_wal_senders). */
const STANDBYS_SQL = `SELECT application_name, client_addr::text AS client_addr, state, sync_state,
  (extract(epoch FROM replay_lag) * 1000)::float8 AS replay_lag_ms
FROM pg_stat_replication`

/** The server's clock, in ms since the epoch. */
const CLOCK_SQL = `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`

interface ServerRow {
  full_page_writes: string
  server_version: string
  server_version_num: number
  synchronous_standby_names: string
  in_recovery: boolean
  ssl: boolean
  ssl_version: string | null
}

/** Every check botmesh knows for PostgreSQL, in the order the screen shows them. */
export async function diagnosePostgres(options: PostgresDoctorOptions): Promise<DoctorCheck[]> {
  const quiet = { error: () => {}, warn: () => {}, info: () => {} }
  const connection = new PostgresConnection({
    connectionString: options.connectionString,
    connectTimeoutMs: options.connectTimeoutMs,
    poolMax: 1,
    logger: quiet,
    applicationName: 'botmesh doctor',
  })
  await connection.acquire()
  try {
    let settings: PersistenceSettings
    try {
      settings = (await connection.query<PersistenceSettings>(PERSISTENCE_SETTINGS_SQL)).rows[0]!
    } catch (error) {
      return [
        doctorCheck(
          'connection',
          'fail',
          `PostgreSQL at ${connection.target}: ${(error as Error).message}`,
          'Check the URL, that the server runs and the credentials',
        ),
      ]
    }
    return await checksOf(connection, settings, options)
  } finally {
    await connection.release()
  }
}

async function checksOf(
  connection: PostgresConnection,
  settings: PersistenceSettings,
  options: PostgresDoctorOptions,
): Promise<DoctorCheck[]> {
  const { limits } = options
  const server = (await connection.query<ServerRow>(SERVER_SQL)).rows[0]!
  const replication = await guarded('replication', async () =>
    replicationCheck(
      {
        inRecovery: server.in_recovery,
        synchronousStandbyNames: server.synchronous_standby_names,
        synchronousCommit: settings.synchronous_commit,
        standbys: (await connection.query<StandbyRow>(STANDBYS_SQL)).rows,
      },
      limits,
    ),
  )
  const clock = await guarded('clock', async () => {
    const reading = await readClock(connection, limits.clockSamples)
    return clockCheck(reading.skewMs, reading.roundTripMs, limits)
  })
  return [
    doctorCheck('connection', 'ok', `PostgreSQL at ${connection.target}`),
    ...persistenceChecks(settings, options.requirePersistence),
    fullPageWritesCheck(server.full_page_writes),
    ...replication,
    postgresVersionCheck(server.server_version, server.server_version_num),
    ...clock,
    postgresTlsCheck({ on: server.ssl, version: server.ssl_version }, hostOf(options.connectionString), isLoopback),
  ]
}

/** The server's clock minus this machine's, from the sample with the shortest round trip. */
async function readClock(connection: PostgresConnection, samples: number): Promise<{ skewMs: number; roundTripMs: number }> {
  let best: { skewMs: number; roundTripMs: number } | undefined
  for (let n = 0; n < samples; n++) {
    const before = Date.now()
    const { ms } = (await connection.query<{ ms: number }>(CLOCK_SQL)).rows[0]!
    const after = Date.now()
    const sample = { skewMs: ms - (before + after) / 2, roundTripMs: after - before }
    if (!best || sample.roundTripMs < best.roundTripMs) best = sample
  }
  return best!
}

function hostOf(connectionString: string): string {
  try {
    const url = new URL(connectionString)
    return url.hostname || url.searchParams.get('host') || 'localhost'
  } catch {
    return 'the server'
  }
}
