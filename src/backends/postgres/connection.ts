/**
 * `PostgresConnection`: the pool a PostgreSQL backend talks through, and who owns it.
 *
 * - Given a `connectionString`, it creates its own pool on the first `acquire` (loading `pg` only
 *   then) and ends it on the last `release`. It listens for the pool's `'error'` event: a
 *   connection the server drops while idle (a restart, a failover, `pg_terminate_backend`) is
 *   reported to `logger.error`, and the pool replaces it on the next query.
 * - Given a `pool`, the pool is the caller's: it is never ended here and no listener is attached
 *   to it (a listener would change what the pool does with an idle error). The caller must give
 *   it a `pool.on('error', …)` listener, because node-postgres crashes the process otherwise.
 *
 * A store and its durability share one `PostgresConnection`, so acquiring is counted.
 */
import { SharedHandle } from '../common/shared-handle.js'
import { certificateRefusal, resolveTls, type StoreTlsOptions } from '../common/tls.js'
import type { Pool, PoolConfig, QueryConfig, QueryResult, QueryResultRow } from 'pg'
import { loadDriver } from '../../core/platform/driver.js'
import { BotmeshError, ConfigError, ERROR_CODES } from '../../core/errors/errors.js'
import { POSTGRES_LIMITS, type PostgresTimeouts } from './limits.js'
import { POSTGRES_TLS_SETTING_NAMES, postgresTlsSettings, type PostgresTls } from './tls.js'

/** Where a backend reports what it cannot throw to anyone (an idle connection dropped by the server). */
export interface PostgresLogger {
  /** Errors no caller can get. @default console.error */
  error(message: string, ...details: unknown[]): void
  /** Warnings (a server with `synchronous_commit` or `fsync` off). @default console.warn */
  warn?(message: string): void
  /** What is worth knowing once. @default console.info */
  info?(message: string): void
}

/** How to reach the server: exactly one of `pool` and `connectionString`. */
export interface PostgresConnectionOptions extends PostgresTimeouts {
  /** A pool you own: never ended by botmesh; give it a `pool.on('error', …)` listener. */
  pool?: Pool
  /**
   * `postgres://user:password@host:port/database`: botmesh creates, and later ends, its own pool.
   * libpq's `sslmode` (disable, require, verify-ca, verify-full), `sslrootcert`, `sslcert` and
   * `sslkey` parameters mean what they mean to psql.
   */
  connectionString?: string
  /**
   * TLS of the pool botmesh creates, checked as `sslmode=verify-full`: the CA to trust, a client
   * certificate, the name the server's certificate carries. Files are read on start.
   * @default the connection string's sslmode, or pg's default (`PGSSLMODE`)
   */
  tls?: StoreTlsOptions
  /** Receives idle connection errors of the pool botmesh creates. @default console */
  logger?: PostgresLogger
  /** `application_name` of the pool botmesh creates (a `?application_name=` in the URL wins). @default 'botmesh' */
  applicationName?: string
  /**
   * Refuse to start (`CONFIG_INVALID`) where `synchronous_commit` or `fsync` is `off` (a crash
   * loses commits botmesh took as done), instead of warning at each start. @default false
   */
  requirePersistence?: boolean
}

/** A shared, counted handle on a pg pool. */
export class PostgresConnection {
  /** `host:port/database` of the server, without credentials, for messages. */
  readonly target: string
  /** Where the backend reports what it cannot raise (idle connection errors, a failed ANALYZE). */
  readonly logger: PostgresLogger
  /** The server's `statement_timeout` on our pool's connections (undefined for a pool given: its own settings apply). */
  readonly statementTimeoutMs: number | undefined
  /** Whether a server that may lose commits is refused (see persistence-check.ts). */
  readonly requirePersistence: boolean
  readonly #options: PostgresConnectionOptions
  readonly #pool: SharedHandle<Pool>
  /** The connection string pg gets (TLS parameters taken out) and the TLS of our pool. */
  readonly #connectionString: string | undefined
  readonly #tls: PostgresTls
  #session: object = {}

  constructor(options: PostgresConnectionOptions) {
    if (options.pool && options.connectionString) throw new ConfigError('pass either pool or connectionString, not both')
    if (!options.pool && !options.connectionString) throw new ConfigError('pass a pool or a connectionString')
    for (const name of ['connectTimeoutMs', 'statementTimeoutMs', 'poolMax'] as const) {
      const value = options[name]
      if (value !== undefined && !(Number.isInteger(value) && value > 0))
        throw new ConfigError(`${name} must be a positive integer, got ${value}`)
    }
    this.#options = options
    const { connectionString, tls } = postgresTlsSettings(options)
    this.#connectionString = connectionString
    this.#tls = tls
    this.logger = options.logger ?? console
    this.#pool = new SharedHandle(options.pool)
    this.target = options.pool ? describePool(options.pool) : describeUrl(options.connectionString!)
    this.statementTimeoutMs = options.pool ? undefined : (options.statementTimeoutMs ?? POSTGRES_LIMITS.statementTimeoutMs)
    this.requirePersistence = options.requirePersistence === true
  }

  /** Reports a warning to the logger's `warn`, or to the console: it must never go unseen. */
  warn(message: string): void {
    if (this.logger.warn) this.logger.warn(message)
    else console.warn(message)
  }

  /** Reports what is worth knowing once to the logger's `info`, or to the console. */
  info(message: string): void {
    if (this.logger.info) this.logger.info(message)
    else console.info(message)
  }

  /** Stands for the current session (first share taken to last given back): checks made once per start key on it. */
  get session(): object {
    return this.#session
  }

  /** Whether the pool is ours to create and end. */
  get owned(): boolean {
    return this.#pool.owned
  }

  /** Takes a share of the connection, creating our own pool on the first share. */
  acquire(): Promise<void> {
    if (this.#pool.users === 0) this.#session = {}
    return this.#pool.acquire(() => this.#createPool())
  }

  /** Gives a share back; the last one ends a pool we created. An injected pool is left open. */
  release(): Promise<void> {
    return this.#pool.release((pool) => pool.end())
  }

  /** Runs one query (a round trip) on any connection of the pool. */
  query<R extends QueryResultRow = QueryResultRow>(query: QueryConfig | string): Promise<QueryResult<R>> {
    const pool = this.#pool.value
    if (!pool || this.#pool.users === 0) {
      return Promise.reject(
        new BotmeshError(ERROR_CODES.BACKEND_NOT_STARTED, `the PostgreSQL backend on ${this.target} is not started: call start() first`),
      )
    }
    const result = typeof query === 'string' ? pool.query<R>(query) : pool.query<R>(query)
    // A connection is opened by the query that needs it: a refused certificate can surface on any of them.
    return result.catch((error: unknown) => {
      throw certificateRefusal(error, `PostgreSQL at ${this.target}`, POSTGRES_TLS_SETTING_NAMES) ?? error
    })
  }

  async #createPool(): Promise<Pool> {
    const pg = await loadPg()
    const statementTimeoutMs = this.statementTimeoutMs ?? POSTGRES_LIMITS.statementTimeoutMs
    const config: PoolConfig = {
      connectionString: this.#connectionString,
      max: this.#options.poolMax ?? POSTGRES_LIMITS.poolMax,
      connectionTimeoutMillis: this.#options.connectTimeoutMs ?? POSTGRES_LIMITS.connectTimeoutMs,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + POSTGRES_LIMITS.queryTimeoutGraceMs,
      application_name: this.#options.applicationName ?? 'botmesh',
      keepAlive: true,
    }
    if (this.#tls.kind === 'off') config.ssl = false
    if (this.#tls.kind === 'on') config.ssl = await resolveTls('tls', this.#tls.tls, this.#tls.verification)
    const pool = new pg.Pool(config)
    // The pool has already removed the broken client when it emits this; the next query opens a new one.
    pool.on('error', (error) => {
      this.logger.error(
        `botmesh: a PostgreSQL connection to ${this.target} was closed while idle (${error.message}); it is replaced on the next query`,
        error,
      )
    })
    return pool
  }
}

/** Loads the driver only when a backend needs it. */
async function loadPg(): Promise<typeof import('pg')> {
  const module = await loadDriver({ packageName: 'pg', neededBy: 'botmesh/postgres-store', load: () => import('pg') })
  return (module as unknown as { default?: typeof import('pg') }).default ?? module
}

function describeUrl(connectionString: string): string {
  try {
    const url = new URL(connectionString)
    const host = url.hostname || url.searchParams.get('host') || 'localhost'
    return `${host}:${url.port || '5432'}${url.pathname && url.pathname !== '/' ? url.pathname : ''}`
  } catch {
    return 'the PostgreSQL server'
  }
}

function describePool(pool: Pool): string {
  const options = (pool as unknown as { options?: { connectionString?: string; host?: string; port?: number; database?: string } }).options
  if (options?.connectionString) return describeUrl(options.connectionString)
  if (options?.host || options?.database)
    return `${options.host ?? 'localhost'}:${options.port ?? 5432}${options.database ? `/${options.database}` : ''}`
  return 'the PostgreSQL server of the given pool'
}
