/**
 * Redis behind Sentinel (docs/backends/redis.md, "Sentinel"): the `sentinel` option, or a
 * `redis+sentinel://` URL (url.ts), makes botmesh's own client ask the sentinels where the primary
 * of a named master is, and follow it when it moves. What a failover does to botmesh's calls:
 *
 * - ioredis subscribes to the sentinels' `+switch-master` and reconnects to the new primary
 *   (`failoverDetector`), checking on each connect that the server it reached is a primary;
 * - a command in flight when the old connection drops, or sent while the client reconnects, is
 *   rejected as retryable (connection.ts: never queued, never resent), so an admission is refused
 *   and the channel delivers the message again;
 * - a demoted primary answers writes with READONLY: the command is rejected as retryable
 *   (failures.ts) and the client reconnects through the sentinels at once;
 * - the new primary does not know botmesh's scripts: NOSCRIPT falls back to EVAL (scripts.ts);
 * - the new primary's settings are checked again (eviction, persistence: server-checks.ts).
 *
 * Botmesh's Redis backend holds no blocking reads and no subscriptions of its own, so nothing else
 * has to be set up again on the new primary.
 */
import type { RedisOptions } from 'ioredis'
import type { ConnectionOptions } from 'node:tls'
import { ConfigError } from '../../core/errors/errors.js'
import { optionNames, refuseUnknownOptions } from '../../core/backend-internals.js'
import { checkTlsOptions, resolveTls, type StoreTlsOptions } from '../common/tls.js'

/** The port a sentinel listens on unless told otherwise. */
export const SENTINEL_DEFAULT_PORT = 26379

/** One sentinel's address. */
export interface RedisSentinelAddress {
  /** Its host name or IP address. */
  host: string
  /** @default 26379 */
  port?: number
}

/** Where the sentinels are, which master they watch, and how to log in to each. */
export interface RedisSentinelConfig {
  /** The sentinels to ask (at least one); ioredis adds the others they know of. */
  sentinels: RedisSentinelAddress[]
  /** The master's name, as the sentinels' `sentinel monitor <name> …` calls it. */
  name: string
  /** The database on the primary. @default 0 */
  db?: number
  /** The primary's ACL user. @default none */
  username?: string
  /** The primary's password (`requirepass` or the ACL user's). @default none */
  password?: string
  /** The sentinels' ACL user. @default none */
  sentinelUsername?: string
  /** The sentinels' password (`requirepass` in sentinel.conf). @default none */
  sentinelPassword?: string
  /**
   * TLS to the sentinels (ioredis' `sentinelTLS`); `false` for clear text. The primary's TLS is the
   * `tls` option (ioredis' `enableTLSForSentinelMode`). @default the `tls` option, or clear text without it
   */
  sentinelTLS?: StoreTlsOptions | false
}

const SENTINEL_OPTION_NAMES = optionNames<RedisSentinelConfig>({
  sentinels: true,
  name: true,
  db: true,
  username: true,
  password: true,
  sentinelUsername: true,
  sentinelPassword: true,
  sentinelTLS: true,
})

const SENTINEL_MISPLACED: Readonly<Record<string, string>> = {
  enableTLSForSentinelMode: 'give the tls option (with sentinel, it is the TLS to the primary)',
  tls: 'tls is an option of RedisDurability itself (the TLS to the primary); sentinelTLS is the TLS to the sentinels',
  role: 'botmesh writes, so it always connects to the primary',
  sentinelTls: 'sentinelTLS',
  masterName: 'name',
}

/** Refuses a `sentinel` option that cannot work, before anything connects. */
export function checkSentinelConfig(config: RedisSentinelConfig): void {
  refuseUnknownOptions('RedisDurability: sentinel', config, SENTINEL_OPTION_NAMES, SENTINEL_MISPLACED)
  if (!Array.isArray(config.sentinels) || config.sentinels.length === 0)
    throw new ConfigError('sentinel.sentinels names no sentinel (expected [{ host, port }, …])')
  for (const { host, port } of config.sentinels) {
    if (typeof host !== 'string' || host === '' || !validPort(port ?? SENTINEL_DEFAULT_PORT))
      throw new ConfigError(`bad sentinel address ${JSON.stringify({ host, port })} (expected { host: string, port: 1…65535 })`)
  }
  if (typeof config.name !== 'string' || config.name === '')
    throw new ConfigError('sentinel.name must be the master name the sentinels monitor (sentinel monitor <name> …)')
  if (config.db !== undefined && !(Number.isInteger(config.db) && config.db >= 0))
    throw new ConfigError(`sentinel.db must be a database number (0, 1, …), got ${JSON.stringify(config.db)}`)
  if (config.sentinelTLS) checkTlsOptions('sentinel.sentinelTLS', config.sentinelTLS)
}

/** Whether `port` is a TCP port. */
export function validPort(port: number): boolean {
  return Number.isInteger(port) && port > 0 && port <= 65_535
}

/** The TLS settings of the primary and of the sentinels, files read now. */
export async function resolveSentinelTls(
  config: RedisSentinelConfig,
  tls: StoreTlsOptions | undefined,
): Promise<{ primary?: ConnectionOptions; sentinels?: ConnectionOptions }> {
  const sentinelTls = config.sentinelTLS === undefined ? tls : config.sentinelTLS || undefined
  return {
    ...(tls ? { primary: await resolveTls('tls', tls) } : {}),
    ...(sentinelTls ? { sentinels: await resolveTls('sentinel.sentinelTLS', sentinelTls) } : {}),
  }
}

/** The ioredis options that reach the primary through the sentinels and follow it (see the file's comment). */
export function sentinelClientOptions(
  config: RedisSentinelConfig,
  tls: { primary?: ConnectionOptions; sentinels?: ConnectionOptions },
): RedisOptions {
  return {
    sentinels: config.sentinels.map(({ host, port }) => ({ host, port: port ?? SENTINEL_DEFAULT_PORT })),
    name: config.name,
    role: 'master',
    db: config.db ?? 0,
    ...(config.username ? { username: config.username } : {}),
    ...(config.password ? { password: config.password } : {}),
    ...(config.sentinelUsername ? { sentinelUsername: config.sentinelUsername } : {}),
    ...(config.sentinelPassword ? { sentinelPassword: config.sentinelPassword } : {}),
    ...(tls.primary ? { tls: tls.primary, enableTLSForSentinelMode: true } : {}),
    ...(tls.sentinels ? { sentinelTLS: tls.sentinels } : {}),
    // Reconnect as soon as a sentinel announces a new primary, not when the old one hangs up.
    failoverDetector: true,
    // A demoted primary refuses writes with READONLY until the sentinels reconfigure it: ask them again now.
    reconnectOnError: (error: Error) => (error.message.startsWith('READONLY') ? 1 : false),
  }
}

/** `name` behind the sentinels, for messages (no credentials). */
export function describeSentinel(config: RedisSentinelConfig): string {
  const sentinels = config.sentinels.map(({ host, port }) => `${host}:${port ?? SENTINEL_DEFAULT_PORT}`).join(',')
  return `the Redis primary "${config.name}" behind the sentinels ${sentinels}, database ${config.db ?? 0}`
}
