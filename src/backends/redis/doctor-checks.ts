/**
 * `botmesh doctor`'s judgement of what doctor-facts.ts read from Redis: pure functions of the
 * facts, one line each (statuses as common/doctor.ts defines them). Persistence and eviction are
 * graded by the rules a start acts on (persistence-check.ts, eviction-policy.ts), never a copy.
 */
import { doctorCheck, persistenceCheck, versionBelow, type DoctorCheck, type DoctorLimits } from '../common/doctor.js'
import type { RedisNodeFacts } from './doctor-facts.js'
import { EVICTION_FIX, EVICTION_LOSES, SAFE_EVICTION_POLICY, evictionAction } from './eviction-policy.js'
import { redisPersistence } from './persistence-check.js'
import { hasWaitaof, WAITAOF_VERSION } from './replica-wait.js'
import type { NodeSettings } from './server-settings.js'

/** The oldest Redis the store's commands run on: its scripts read the state indexes with ZRANGEBYLEX (2.8.9). */
export const REDIS_VERSION_MIN = '2.8.9'

/** AOF, snapshots, or nothing: the start's own finding, graded as a start acts on it. */
export function redisPersistenceCheck(settings: readonly NodeSettings[], clustered: boolean, requirePersistence: boolean): DoctorCheck {
  return persistenceCheck('persistence', redisPersistence(settings, clustered), requirePersistence)
}

/** Any policy but `noeviction` is refused by a start (a warn when `acceptEviction` is set, as the start warns). */
export function evictionCheck(settings: readonly NodeSettings[], acceptEviction: boolean): DoctorCheck {
  const readable = settings.flatMap((node) => (node.settings ? [node.settings['maxmemory-policy']] : []))
  if (readable.length < settings.length)
    return doctorCheck(
      'maxmemory-policy',
      'warn',
      'could not be checked: CONFIG GET is not allowed there',
      `Make sure maxmemory-policy is "${SAFE_EVICTION_POLICY}": under any other, ${EVICTION_LOSES}`,
    )
  const { evicting, action } = evictionAction(readable, acceptEviction)
  if (action === 'none')
    return doctorCheck('maxmemory-policy', 'ok', `${SAFE_EVICTION_POLICY}: a full server refuses writes, it never drops a journal key`)
  const found = `"${evicting.join('", "')}": ${EVICTION_LOSES}`
  if (action === 'warn') return doctorCheck('maxmemory-policy', 'warn', `${found} (accepted with acceptEviction=true)`, EVICTION_FIX)
  return doctorCheck('maxmemory-policy', 'fail', `${found}; a bot refuses to start on it`, EVICTION_FIX)
}

/** One replica as `INFO replication` lists it (`slave0:ip=…,port=…,state=online,offset=…,lag=0`). */
export interface ReplicaFacts {
  address: string
  state: string
  /** Seconds since its last acknowledgement. */
  lagSeconds: number
  /** Bytes of the replication stream it has not acknowledged. */
  behindBytes: number
}

/** The replicas a master lists. */
export function replicasOf(info: Record<string, string>): ReplicaFacts[] {
  const masterOffset = Number(info.master_repl_offset ?? 0)
  return Object.keys(info)
    .filter((name) => /^slave\d+$/.test(name))
    .map((name) => {
      const fields = Object.fromEntries(info[name]!.split(',').map((pair) => pair.split('=') as [string, string]))
      return {
        address: `${fields.ip}:${fields.port}`,
        state: fields.state ?? 'unknown',
        lagSeconds: Number(fields.lag ?? 0),
        behindBytes: Math.max(0, masterOffset - Number(fields.offset ?? 0)),
      }
    })
}

/** Role, connected replicas and their lag, per master; a replica pointed at is a fail (it refuses writes). */
export function replicationCheck(nodes: readonly RedisNodeFacts[], limits: Pick<DoctorLimits, 'replicaLagMsMax'>): DoctorCheck {
  const unread = nodes.find((node) => !node.info)
  if (unread) return doctorCheck('replication', 'warn', `could not be checked: ${unread.infoRefused}`)
  const replicaNode = nodes.find((node) => node.info!.role === 'slave')
  if (replicaNode) {
    const info = replicaNode.info!
    return doctorCheck(
      'replication',
      'fail',
      `${replicaNode.address} is a replica of ${info.master_host}:${info.master_port} (link ${info.master_link_status ?? 'unknown'}): it refuses the journal's writes`,
      'Point the backend URL at the primary',
    )
  }
  const where = (node: RedisNodeFacts) => (nodes.length > 1 ? `${node.address}: ` : '')
  const replicas = nodes.map((node) => ({ node, replicas: replicasOf(node.info!) }))
  if (replicas.every(({ replicas: found }) => found.length === 0))
    return doctorCheck('replication', 'ok', 'no replicas: a lone server (the persistence line says what its restart keeps)')
  const lines = replicas.map(({ node, replicas: found }) =>
    found.length === 0
      ? `${where(node)}no replicas`
      : `${where(node)}${found.map((r) => `${r.address} ${r.state}, lag ${r.lagSeconds} s, ${r.behindBytes} bytes behind`).join('; ')}`,
  )
  const lagging = replicas.flatMap(({ replicas: found }) =>
    found.filter((r) => r.state !== 'online' || r.lagSeconds * 1_000 > limits.replicaLagMsMax),
  )
  if (lagging.length === 0) return doctorCheck('replication', 'ok', lines.join('; '))
  return doctorCheck(
    'replication',
    'warn',
    `${lines.join('; ')}: ${lagging.map((r) => r.address).join(', ')} not online or over ${limits.replicaLagMsMax / 1_000} s behind, so a failover to it loses more`,
    "Look at the replica's link and load (INFO replication on it); a replica far behind should not be promoted",
  )
}

/** Replicas connected to each master (none on a replica, whose line fails anyway). */
export function replicaCounts(nodes: readonly RedisNodeFacts[]): number[] {
  return nodes.map((node) => (node.info ? replicasOf(node.info).filter((r) => r.state === 'online').length : 0))
}

/**
 * Whether journal writes wait for replicas (`waitReplicas`, replica-wait.ts): needed once there
 * are replicas to fail over to; a fail where fewer are connected than it waits for (every write
 * would time out). `versions` are the masters' `redis_version`s: WAIT or WAITAOF.
 */
export function waitReplicasCheck(
  configured: number | undefined,
  replicasPerMaster: readonly number[],
  versions: readonly string[] = [],
): DoctorCheck {
  const fewest = Math.min(...replicasPerMaster)
  const any = replicasPerMaster.some((count) => count > 0)
  if (configured === undefined || configured === 0) {
    if (!any) return doctorCheck('waitReplicas', 'ok', 'not set, and not needed: no replicas')
    return doctorCheck(
      'waitReplicas',
      'warn',
      'not set: Redis replicates asynchronously, so a write is acknowledged before a replica has it, and a failover to that replica loses the journal writes it had not received',
      'Set waitReplicas: 1 (&waitReplicas=1 in a backend URL): a journal write then counts as done only once a replica has it',
    )
  }
  if (fewest < configured)
    return doctorCheck(
      'waitReplicas',
      'fail',
      `${configured}, but ${fewest} replica(s) connected: every journal write would time out waiting`,
      `Connect ${configured} replicas to every master, or lower waitReplicas`,
    )
  const how =
    versions.length > 0 && versions.every(hasWaitaof)
      ? 'WAITAOF: in their AOF on disk; replicas without appendonly yes are not counted'
      : `WAIT: in their memory; WAITAOF, on disk, needs Redis ${WAITAOF_VERSION}`
  return doctorCheck('waitReplicas', 'ok', `${configured}: a journal write is done once ${configured} replica(s) have it (${how})`)
}

/** The masters' `redis_version`s (fewer than the masters where INFO was refused). */
export function versionsOf(nodes: readonly RedisNodeFacts[]): string[] {
  return nodes.flatMap((node) => (node.info?.redis_version ? [node.info.redis_version] : []))
}

/** The lowest version among the masters, against what the store needs; WAITAOF's version named. */
export function versionCheck(nodes: readonly RedisNodeFacts[]): DoctorCheck {
  const versions = versionsOf(nodes)
  if (versions.length < nodes.length)
    return doctorCheck(
      'version',
      'warn',
      `could not be checked: ${nodes.find((node) => !node.info)?.infoRefused ?? 'INFO has no redis_version'}`,
    )
  const lowest = versions.reduce((a, b) => (versionBelow(b, a) ? b : a))
  const waitaof = versionBelow(lowest, WAITAOF_VERSION)
    ? `; WAITAOF (waiting until replicas have a write on disk) needs ${WAITAOF_VERSION}`
    : '; WAITAOF is there'
  if (versionBelow(lowest, REDIS_VERSION_MIN))
    return doctorCheck(
      'version',
      'fail',
      `Redis ${lowest}, older than ${REDIS_VERSION_MIN}, the oldest the store's scripts run on`,
      `Upgrade Redis`,
    )
  return doctorCheck('version', 'ok', `Redis ${lowest}${waitaof}`)
}

/** TLS to every node, or clear text: a warn only where it crosses a network. */
export function tlsCheck(nodes: readonly RedisNodeFacts[], isLoopback: (host: string) => boolean): DoctorCheck {
  const clear = nodes.filter((node) => node.tls === undefined)
  if (clear.length === 0) return doctorCheck('tls', 'ok', `${[...new Set(nodes.map((node) => node.tls))].join(', ')} to every node`)
  if (clear.every((node) => isLoopback(node.host)))
    return doctorCheck('tls', 'ok', 'not in use; the server is on this machine (loopback), so nothing crosses a network')
  return doctorCheck(
    'tls',
    'warn',
    `not in use to ${clear.map((node) => node.address).join(', ')}: messages and replies cross the network in clear text`,
    'Use rediss:// (rediss+cluster://), with &caFile=… when a private CA signs the server certificate (docs/security.md)',
  )
}

/** A Cluster reached as a Cluster, or a single server as one. */
export function clusterCheck(nodes: readonly RedisNodeFacts[], clustered: boolean): DoctorCheck {
  const enabled = nodes.some((node) => node.info?.cluster_enabled === '1')
  if (clustered)
    return doctorCheck('cluster', 'ok', `a Cluster of ${nodes.length} master(s): ${nodes.map((node) => node.address).join(', ')}`)
  if (nodes.every((node) => !node.info)) return doctorCheck('cluster', 'warn', `could not be checked: ${nodes[0]?.infoRefused}`)
  if (!enabled) return doctorCheck('cluster', 'ok', 'not a Cluster: one server')
  return doctorCheck(
    'cluster',
    'fail',
    "the server is a Cluster node, but the URL names one server: keys of other nodes' slots are refused (MOVED)",
    'Use redis+cluster://host:port,host:port (rediss+cluster:// with TLS)',
  )
}
