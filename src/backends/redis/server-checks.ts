/**
 * What a start checks on the server, once per session of a connection (its first share taken to
 * its last given back), whichever of a `RedisStore` and its durability starts first: the
 * eviction policy (eviction-policy.ts) and the persistence settings (persistence-check.ts), read
 * together in one round trip per master (server-settings.ts). Behind Sentinel they run again on
 * each primary a failover moves the client to (`recheckServer`, primary-watch.ts).
 */
import { reportPersistence, type PersistenceFinding } from '../common/persistence.js'
import type { FailureRole } from '../common/failure-role.js'
import type { RedisConnection } from './connection.js'
import { checkEvictionPolicy, SAFE_EVICTION_POLICY } from './eviction-policy.js'
import { redisPersistence } from './persistence-check.js'
import { redisFailure, withDeadline } from './failures.js'
import { readServerSettings, type NodeSettings } from './server-settings.js'

/** Sessions checked (or being checked): a concurrent start waits for the same check. */
const checked = new WeakMap<object, Promise<void>>()

/** The server checks of this session of `connection`: refuses (ConfigError) or warns; see the file's comment. */
export function checkServer(connection: RedisConnection, role: FailureRole): Promise<void> {
  connection.checkEachPrimary(() => recheckServer(connection))
  const session = connection.session
  let check = checked.get(session)
  if (!check) {
    check = runChecks(connection, role)
    checked.set(session, check)
    // A failed read (the server went away) is tried again by the next start.
    check.catch(() => checked.delete(session))
  }
  return check
}

/** A server that hides its settings: one warning for both checks. */
const UNREADABLE: PersistenceFinding = {
  level: 'unreadable',
  settings: 'maxmemory-policy, appendonly, appendfsync and save',
  why: 'CONFIG GET is not allowed there',
  check:
    `maxmemory-policy is "${SAFE_EVICTION_POLICY}" (or Redis may evict journal records under memory pressure) and that it runs ` +
    'with appendonly yes and appendfsync always (or a restart may lose journal records)',
}

/**
 * The same checks on the server the connection is on now, whatever an earlier check found: its
 * read skips `run()`, which a refused primary would fail. Throws as a start would.
 */
export async function recheckServer(connection: RedisConnection): Promise<void> {
  const read = async (): Promise<NodeSettings[]> => {
    try {
      return await withDeadline('read the server settings', connection.commandTimeoutMs, readServerSettings(connection.client()))
    } catch (error) {
      throw redisFailure('read the server settings', error)
    }
  }
  await judge(connection, await read())
}

async function runChecks(connection: RedisConnection, role: FailureRole): Promise<void> {
  await judge(connection, await connection.run('read the server settings', role, (client) => readServerSettings(client)))
}

async function judge(connection: RedisConnection, nodes: NodeSettings[]): Promise<void> {
  const report = {
    target: connection.target,
    requirePersistence: connection.requirePersistence,
    log: { warn: (message: string) => connection.warn(message), info: (message: string) => connection.info(message) },
    connection,
  }
  const readable = nodes.flatMap((node) => (node.settings ? [node.settings] : []))
  checkEvictionPolicy(
    readable.map((settings) => settings['maxmemory-policy']),
    { target: connection.target, acceptEviction: connection.acceptEviction, warn: report.log.warn },
  )
  const finding = redisPersistence(nodes, connection.clustered)
  reportPersistence(finding.level === 'unreadable' ? UNREADABLE : finding, report)
}
