/**
 * `botmesh doctor` on Redis: opens a connection of its own (no journal is opened, so it works on a
 * server that holds none yet), reads (doctor-facts.ts), judges (doctor-checks.ts) and lets go.
 * Each check stands alone: one the server refuses is a warn line, the others still run.
 */
import { clockCheck, doctorCheck, guarded, isLoopback, type DoctorCheck, type DoctorLimits } from '../common/doctor.js'
import { RedisConnection, type RedisConnectionOptions } from './connection.js'
import {
  clusterCheck,
  evictionCheck,
  redisPersistenceCheck,
  replicaCounts,
  replicationCheck,
  tlsCheck,
  versionCheck,
  versionsOf,
  waitReplicasCheck,
} from './doctor-checks.js'
import { mastersOf, readClock, readRedisFacts } from './doctor-facts.js'

/** Where to look and what the operator set (the options of the backend URL). */
export interface RedisDoctorOptions {
  connection: Omit<RedisConnectionOptions, 'client' | 'logger'>
  limits: DoctorLimits
}

/** Every check botmesh knows for Redis, in the order the screen shows them. */
export async function diagnoseRedis(options: RedisDoctorOptions): Promise<DoctorCheck[]> {
  // ioredis reports why a connect failed (refused, WRONGPASS) as an event; the rejection only says it closed.
  const seen: unknown[] = []
  const quiet = { error: (_message: string, error?: unknown) => seen.push(error), warn: () => {}, info: () => {} }
  const connection = new RedisConnection({ ...options.connection, logger: quiet })
  try {
    await connection.acquire('journal')
  } catch (error) {
    const why = seen[0] instanceof Error ? ` (${seen[0].message})` : ''
    return [
      doctorCheck(
        'connection',
        'fail',
        `${connection.target}: ${(error as Error).message}${why}`,
        'Check the URL, that the server runs and that this machine may reach it',
      ),
    ]
  }
  try {
    return await checksOf(connection, options)
  } finally {
    await connection.release()
  }
}

async function checksOf(connection: RedisConnection, options: RedisDoctorOptions): Promise<DoctorCheck[]> {
  const { limits } = options
  const client = connection.client()
  const facts = await connection.run('read the server settings', 'journal', (open) => readRedisFacts(open))
  const { nodes, settings } = facts
  const clock = await guarded('clock', async () => {
    const reading = await connection.run('read the server clock', 'journal', () => readClock(mastersOf(client)[0]!, limits.clockSamples))
    return clockCheck(reading.skewMs, reading.roundTripMs, limits)
  })
  return [
    doctorCheck('connection', 'ok', connection.target),
    redisPersistenceCheck(settings, connection.clustered, connection.requirePersistence),
    evictionCheck(settings, connection.acceptEviction),
    replicationCheck(nodes, limits),
    waitReplicasCheck(connection.replicaWait?.replicas, replicaCounts(nodes), versionsOf(nodes)),
    ...clock,
    versionCheck(nodes),
    tlsCheck(nodes, isLoopback),
    clusterCheck(nodes, connection.clustered),
  ]
}
