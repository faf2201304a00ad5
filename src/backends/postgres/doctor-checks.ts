/**
 * `botmesh doctor`'s judgement of what doctor.ts read from PostgreSQL: pure functions, one line
 * each (statuses as common/doctor.ts defines them). `synchronous_commit` and `fsync` are graded by
 * the rule a start acts on (persistence-check.ts), each setting on its own line.
 */
import { doctorCheck, persistenceCheck, type DoctorCheck, type DoctorLimits } from '../common/doctor.js'
import { postgresPersistence, type PersistenceSettings } from './persistence-check.js'

/** The oldest PostgreSQL the store's schema runs on: its message log has an identity column (PostgreSQL 10). */
export const POSTGRES_VERSION_NUM_MIN = 100_000

/** `synchronous_commit` and `fsync`, each on its own line, by the start's own rule. */
export function persistenceChecks(settings: PersistenceSettings, requirePersistence: boolean): DoctorCheck[] {
  const commit = persistenceCheck(
    'synchronous_commit',
    postgresPersistence({ synchronous_commit: settings.synchronous_commit, fsync: 'on' }),
    requirePersistence,
  )
  const fsync = persistenceCheck('fsync', postgresPersistence({ synchronous_commit: 'on', fsync: settings.fsync }), requirePersistence)
  return [
    commit.status === 'ok' ? { ...commit, found: `${settings.synchronous_commit}: a commit returns once its WAL is on disk` } : commit,
    fsync.status === 'ok' ? { ...fsync, found: `${settings.fsync}: the server forces its writes to disk` } : fsync,
  ]
}

/** `full_page_writes = off` lets a crash in the middle of a page write leave a page WAL replay cannot repair. */
export function fullPageWritesCheck(value: string): DoctorCheck {
  if (value !== 'off') return doctorCheck('full_page_writes', 'ok', `${value}: a page torn by a crash is restored from the WAL`)
  return doctorCheck(
    'full_page_writes',
    'warn',
    'off: a crash in the middle of a page write can leave a torn page WAL replay cannot repair, corrupting journal rows (safe only on a file system that never tears a page, such as ZFS)',
    'Set full_page_writes = on in postgresql.conf',
  )
}

/** One row of `pg_stat_replication`. */
export interface StandbyRow {
  application_name: string
  client_addr: string | null
  state: string | null
  sync_state: string | null
  replay_lag_ms: number | null
}

/** What the replication check reads. */
export interface ReplicationFacts {
  inRecovery: boolean
  synchronousStandbyNames: string
  synchronousCommit: string
  standbys: StandbyRow[]
}

/** A standby pointed at, standbys and their lag, and whether commits wait for one. */
export function replicationCheck(facts: ReplicationFacts, limits: Pick<DoctorLimits, 'replicaLagMsMax'>): DoctorCheck {
  if (facts.inRecovery)
    return doctorCheck(
      'replication',
      'fail',
      "the server is a standby (in recovery): it refuses the journal's writes",
      'Point the backend URL at the primary',
    )
  const { standbys, synchronousStandbyNames: names } = facts
  const synchronous = standbys.filter((row) => row.sync_state === 'sync' || row.sync_state === 'quorum')
  if (names.trim() !== '' && synchronous.length === 0)
    return doctorCheck(
      'replication',
      'fail',
      `synchronous_standby_names is '${names}' but no synchronous standby is connected: every commit waits for one, so journal writes hang`,
      'Bring the standby back, or clear synchronous_standby_names (and lose what a failover would)',
    )
  if (standbys.length === 0) return doctorCheck('replication', 'ok', 'no standbys: a lone server')
  const listed = standbys
    .map(
      (row) =>
        `${row.application_name || row.client_addr || 'a standby'} ${row.state ?? '?'} ${row.sync_state ?? '?'}, replay lag ${Math.round(row.replay_lag_ms ?? 0)} ms`,
    )
    .join('; ')
  const lagging = standbys.filter((row) => (row.replay_lag_ms ?? 0) > limits.replicaLagMsMax || row.state !== 'streaming')
  if (synchronous.length === 0)
    return doctorCheck(
      'replication',
      'warn',
      `${listed}: asynchronous, so a commit is acknowledged before a standby has it, and a failover to one loses the journal writes it had not received`,
      "Set synchronous_standby_names = 'FIRST 1 (<standby name>)' with synchronous_commit = on (or remote_apply)",
    )
  if (facts.synchronousCommit === 'local' || facts.synchronousCommit === 'off')
    return doctorCheck(
      'replication',
      'warn',
      `${listed}, but synchronous_commit is "${facts.synchronousCommit}", so commits do not wait for the synchronous standby`,
      'Set synchronous_commit = on (or remote_apply)',
    )
  if (lagging.length > 0)
    return doctorCheck(
      'replication',
      'warn',
      `${listed}: a standby is not streaming or over ${limits.replicaLagMsMax} ms behind`,
      'Look at the standby (pg_stat_wal_receiver on it); one far behind should not be promoted',
    )
  return doctorCheck('replication', 'ok', `${listed}; commits wait for the synchronous standby`)
}

/** The server's version against what the store's schema needs. */
export function postgresVersionCheck(version: string, versionNum: number): DoctorCheck {
  if (versionNum < POSTGRES_VERSION_NUM_MIN)
    return doctorCheck(
      'version',
      'fail',
      `PostgreSQL ${version}, older than 10, the oldest the store's schema runs on`,
      'Upgrade PostgreSQL',
    )
  return doctorCheck('version', 'ok', `PostgreSQL ${version}`)
}

/** TLS on our own session (pg_stat_ssl), or clear text: a warn only where it crosses a network. */
export function postgresTlsCheck(
  ssl: { on: boolean; version: string | null },
  host: string,
  isLoopback: (host: string) => boolean,
): DoctorCheck {
  if (ssl.on) return doctorCheck('tls', 'ok', `${ssl.version ?? 'TLS'} on this session`)
  if (isLoopback(host)) return doctorCheck('tls', 'ok', 'not in use; the server is on this machine, so nothing crosses a network')
  return doctorCheck(
    'tls',
    'warn',
    `not in use to ${host}: messages and replies cross the network in clear text`,
    'Add ?sslmode=verify-full&sslrootcert=<CA file> to the URL (docs/security.md)',
  )
}
