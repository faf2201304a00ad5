/**
 * The connection a `RedisDurability` (and a `RedisStore`, and the durability it hands out) works
 * through. A client the caller injects is the caller's: used as it is, never closed here. A `url`,
 * `cluster` or `sentinel` makes a client of our own (client.ts): opened by the first `acquire()`,
 * closed by the last `release()`, so a store and its durability share one connection in any
 * start/stop order.
 *
 * Our own clients fail fast instead of hanging (the CLI and a fail-closed bot need that): a
 * connect gives up after `connectTimeoutMs`; a command gives up after `commandTimeoutMs`; a command
 * issued while the server is gone is rejected at the next failed reconnection (at most
 * `REDIS_LIMITS.reconnectMaxMs` apart) instead of waiting in a queue; and a command in flight when
 * the connection drops is rejected, never silently sent again (its outcome is unknown, which the
 * engine treats like any failed write). The client keeps reconnecting, so the same instance
 * works again once the server is back, or once Sentinel has promoted a new primary (sentinel.ts,
 * primary-watch.ts).
 */
import { SharedHandle } from '../common/shared-handle.js'
import { certificateRefusal, resolveTls, type StoreTlsOptions } from '../common/tls.js'
import type { RedisConnectionOptions } from './connection-options.js'
import type { Redis } from 'ioredis'
import { BotmeshError, ConfigError, ERROR_CODES } from '../../core/errors/errors.js'
import type { FailureRole } from '../common/failure-role.js'
import { createRedisClient, type RedisClient } from './client.js'
import { redisFailure, withDeadline } from './failures.js'
import { REDIS_LIMITS, type RedisTimeouts } from './limits.js'
import { PrimaryWatch } from './primary-watch.js'
import { ReplicaWait } from './replica-wait.js'
import { checkSentinelConfig, resolveSentinelTls } from './sentinel.js'
import { REDIS_TLS_SETTING_NAMES, redisTlsSettings } from './tls.js'
import { clusterNodes, describeTarget } from './target.js'
import { redisOptionsFromUrl, takeReplicaWaitParams } from './url.js'

export type { RedisClient } from './client.js'
export type { RedisClusterConfig, RedisConnectionOptions, RedisLogger } from './connection-options.js'

/** A counted handle on one Redis connection. */
export class RedisConnection {
  /** How long opening a connection may take, in ms. @default REDIS_LIMITS.connectTimeoutMs (5000) */
  readonly connectTimeoutMs: number
  /** How long one command may wait for its reply, in ms. @default REDIS_LIMITS.commandTimeoutMs (5000) */
  readonly commandTimeoutMs: number
  /** `host:port/db` (or the cluster's nodes), without credentials, for messages. */
  readonly target: string
  /** Whether an evicting server is accepted (see eviction-policy.ts). */
  readonly acceptEviction: boolean
  /** Whether a server without AOF is refused (see persistence-check.ts). */
  readonly requirePersistence: boolean
  /** @internal How journal writes wait for replicas (`waitReplicas`); undefined when they do not. */
  readonly replicaWait: ReplicaWait | undefined
  readonly #options: RedisConnectionOptions
  readonly #client: SharedHandle<RedisClient>
  /** The URL ioredis gets (TLS parameters taken out). */
  readonly #url: string | undefined
  readonly #tls: StoreTlsOptions | undefined
  #session: object = {}
  /** Behind Sentinel: which primary the client is on, and whether its checks refused it. */
  #primary: PrimaryWatch | undefined
  /** What a new primary is checked with (server-checks.ts registers the start's checks). */
  #primaryCheck: () => Promise<void> = async () => {}

  constructor(given: RedisConnectionOptions) {
    const options = withUrlOptions(given)
    const sources = [options.client, options.url, options.cluster, options.sentinel].filter((source) => source !== undefined).length
    if (sources !== 1) throw new ConfigError(`Redis needs exactly one of client, url, cluster or sentinel; got ${sources}`)
    if (options.cluster !== undefined && clusterNodes(options.cluster).length === 0)
      throw new ConfigError('the Redis cluster option names no nodes')
    if (options.sentinel !== undefined) checkSentinelConfig(options.sentinel)
    this.#options = options
    const { url, tls } = redisTlsSettings(options)
    this.#url = url
    this.#tls = tls
    this.#client = new SharedHandle(options.client)
    this.connectTimeoutMs = positive('connectTimeoutMs', options.connectTimeoutMs ?? REDIS_LIMITS.connectTimeoutMs)
    this.commandTimeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs ?? REDIS_LIMITS.commandTimeoutMs)
    this.target = describeTarget(options)
    this.acceptEviction = options.acceptEviction === true
    this.requirePersistence = options.requirePersistence === true
    this.replicaWait = ReplicaWait.of(options)
  }

  /** Reports a warning to the logger's `warn`, or to the console: it must never go unseen. */
  warn(message: string): void {
    const logger = this.#options.logger
    if (logger?.warn) logger.warn(message)
    else console.warn(message)
  }

  /** Reports what is worth knowing once to the logger's `info`, or to the console. */
  info(message: string): void {
    const logger = this.#options.logger
    if (logger?.info) logger.info(message)
    else console.info(message)
  }

  /** Stands for the current session (first share taken to last given back): checks made once per start key on it. */
  get session(): object {
    return this.#session
  }

  /** Behind Sentinel, runs `check` on each primary a failover moves the client to (primary-watch.ts). */
  checkEachPrimary(check: () => Promise<void>): void {
    this.#primaryCheck = check
  }

  /** Opens our own client on the first call (rejects with a retryable error when Redis cannot be reached). */
  acquire(role: FailureRole = 'journal'): Promise<void> {
    if (this.#client.users === 0) this.#session = {}
    return this.#client.acquire(() => this.#open(role))
  }

  /** Closes our own client when every `acquire` has been released. */
  release(): Promise<void> {
    return this.#client.release((client) => this.#close(client))
  }

  /** Whether this is a Redis Cluster (where one script may only touch the keys of one slot). */
  get clustered(): boolean {
    if (this.#options.cluster !== undefined) return true
    const client = this.#options.client
    return client !== undefined && 'isCluster' in client && client.isCluster
  }

  /** Whether the client is ours to create and quit. */
  get owned(): boolean {
    return this.#client.owned
  }

  /** Whether calls can be made (acquired, or an injected client). */
  get open(): boolean {
    return this.#client.value !== undefined && (this.#client.users > 0 || !this.owned)
  }

  /** The client, for one call; rejects with a typed error if the connection is not acquired. */
  client(role: FailureRole = 'journal'): RedisClient {
    const client = this.#client.value
    if (!this.open || client === undefined) {
      const owner = role === 'store' ? 'RedisStore' : 'RedisDurability'
      throw new BotmeshError(ERROR_CODES.NOT_STARTED, `${owner} is not started: call start() first (the bot does it)`)
    }
    return client
  }

  /**
   * Makes one call with the deadline and maps its failure (retryable when the server is
   * unreachable). `what` names the operation in error messages.
   */
  async run<T>(what: string, role: FailureRole, call: (client: RedisClient) => Promise<T>): Promise<T> {
    const client = this.client(role)
    this.#primary?.assertAccepted(role)
    try {
      return await withDeadline(what, this.commandTimeoutMs, call(client), role)
    } catch (error) {
      throw redisFailure(what, error, role)
    }
  }

  /**
   * Called once after each batch of journal writes to `key`'s node lands: with `waitReplicas`,
   * resolves once that many replicas have them and rejects as retryable otherwise (replica-wait.ts);
   * without it, at once.
   */
  async confirmWrites(key: string, what: string, role: FailureRole = 'journal'): Promise<void> {
    const wait = this.replicaWait
    if (wait === undefined) return
    const client = this.client(role)
    try {
      await withDeadline(what, this.commandTimeoutMs + wait.timeoutMs, wait.confirm(client, key, what, role), role)
    } catch (error) {
      throw redisFailure(what, error, role)
    }
  }

  async #open(role: FailureRole): Promise<RedisClient> {
    const { sentinel, cluster } = this.#options
    const tls = sentinel
      ? await resolveSentinelTls(sentinel, this.#tls)
      : { primary: this.#tls && (await resolveTls('tls', this.#tls)), sentinels: undefined }
    const client = await createRedisClient(
      { url: this.#url, cluster, sentinel },
      { connectTimeoutMs: this.connectTimeoutMs, tls: tls.primary, sentinelTls: tls.sentinels },
    )
    let reported = false
    // ioredis rejects a failed connect with "Connection is closed"; why it closed comes as an event.
    let firstError: unknown
    client.on('error', (error: unknown) => {
      firstError ??= error
      if (reported) return
      reported = true
      this.#options.logger?.error(
        `Redis connection error (botmesh keeps reconnecting): ${error instanceof Error ? error.message : String(error)}`,
        error,
      )
    })
    client.on('ready', () => {
      reported = false
    })
    try {
      await withDeadline('connect', this.connectTimeoutMs, client.connect(), role)
    } catch (error) {
      client.disconnect()
      throw certificateRefusal(firstError, this.target, REDIS_TLS_SETTING_NAMES) ?? redisFailure('connect', error, role)
    }
    await this.#checkDatabase(client, role)
    this.#primary = sentinel
      ? new PrimaryWatch(client as Redis, { target: this.target, info: (message) => this.info(message), check: () => this.#primaryCheck() })
      : undefined
    return client
  }

  /**
   * ioredis selects the URL's database on connect but, when the server refuses it (`/99` on a
   * server with 16), only emits an error and carries on in database 0: the journal would be read
   * from, and written to, the wrong database. Selecting it again here turns that into a refusal.
   */
  async #checkDatabase(client: RedisClient, role: FailureRole): Promise<void> {
    const db = 'isCluster' in client && client.isCluster ? 0 : Number((client as Redis).options.db ?? 0)
    if (db === 0) return
    try {
      await withDeadline('select', this.commandTimeoutMs, (client as Redis).select(db), role)
    } catch (error) {
      client.disconnect()
      if (error instanceof Error && /DB index/i.test(error.message)) {
        throw new ConfigError(
          `${this.target}: the server has no database ${db} (it said "${error.message}"); check the number after the port in the URL`,
        )
      }
      throw redisFailure('select', error, role)
    }
  }

  /** Quits and waits for the socket(s) to close, so a stopped backend leaves nothing open. */
  async #close(client: RedisClient): Promise<void> {
    if (client.status !== 'ready') {
      // Reconnecting (the server is gone) or never connected: nothing to flush, and no 'end' would come.
      client.disconnect()
      return
    }
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()))
    try {
      await withDeadline('quit', this.commandTimeoutMs, Promise.all([client.quit(), ended]))
    } catch {
      // The server is gone or slow: drop the socket instead; there is nothing left to flush.
      client.disconnect()
    }
    // Behind Sentinel, QUIT leaves the failover detector's connections to the sentinels open; this ends them.
    if (this.#options.sentinel) client.disconnect()
  }
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number of milliseconds, got ${value}`)
  return value
}

/**
 * A `redis+sentinel://` URL given as `url`, read into the `sentinel` option (url.ts); a plain one
 * without its `waitReplicas` / `waitTimeoutMs`, read into those options; any other options as given.
 */
function withUrlOptions(options: RedisConnectionOptions): RedisConnectionOptions {
  if (options.url === undefined) return options
  if (!/^rediss?\+sentinel:/i.test(options.url)) {
    const { url, ...waiting } = takeReplicaWaitParams(options.url)
    return {
      ...options,
      url,
      waitReplicas: options.waitReplicas ?? waiting.waitReplicas,
      waitTimeoutMs: options.waitTimeoutMs ?? waiting.waitTimeoutMs,
    }
  }
  if (/[?&]prefix=/.test(options.url)) throw new ConfigError('give the key prefix as the prefix option, not in the url option')
  const { prefix: _prefix, tls, ...fromUrl } = redisOptionsFromUrl(options.url)
  if (tls && Object.keys(tls).length > 0 && options.tls)
    throw new ConfigError('give the Redis TLS settings in the URL (?caFile=…) or in the tls option, not both')
  return {
    ...options,
    url: undefined,
    ...fromUrl,
    ...(tls || options.tls ? { tls: options.tls ?? tls } : {}),
    acceptEviction: options.acceptEviction ?? fromUrl.acceptEviction,
    requirePersistence: options.requirePersistence ?? fromUrl.requirePersistence,
    waitReplicas: options.waitReplicas ?? fromUrl.waitReplicas,
    waitTimeoutMs: options.waitTimeoutMs ?? fromUrl.waitTimeoutMs,
  }
}
