/**
 * `PostgresDurability`: journals in PostgreSQL, shared by every replica that reaches the server.
 * One table, `{tablePrefix}durable`, is created idempotently on start (its per-state counts are
 * rows of the same table, counters.ts); every transition is one statement conditional on the version; leases are judged by
 * the server's `clock_timestamp()`.
 */
import { KvDurability, optionNames, refuseUnknownOptions } from '../../core/backend-internals.js'
import type { PostgresConnection } from './connection.js'
import { PostgresKv, type PostgresKvOptions } from './kv.js'
import type { JournalSteps } from '../../core/durability/steps/journal-steps.js'
import { named } from './prepared.js'
import { StepBatches } from './steps/step-batches.js'
import { PostgresSteps } from './steps/steps.js'

/**
 * Options of `PostgresDurability`: exactly one of `pool` (yours: never ended by botmesh, give it a
 * `pool.on('error', …)` listener) and `connectionString` (botmesh creates and ends the pool), plus
 * `tablePrefix` (default `'botmesh_'`), `logger` and the connection timeouts.
 */
export type PostgresDurabilityOptions = PostgresKvOptions

/** The names `new PostgresDurability(…)` (and `new PostgresStore(…)`) take. */
export const POSTGRES_OPTION_NAMES = optionNames<PostgresKvOptions>({
  pool: true,
  connectionString: true,
  tls: true,
  logger: true,
  applicationName: true,
  connectTimeoutMs: true,
  statementTimeoutMs: true,
  poolMax: true,
  tablePrefix: true,
  mustExist: true,
  requirePersistence: true,
})

/** Options other backends take, which a PostgreSQL caller may pass by mistake. */
export const POSTGRES_MISPLACED: Readonly<Record<string, string>> = {
  prefix: 'PostgreSQL takes tablePrefix',
  url: 'PostgreSQL takes connectionString',
  client: 'PostgreSQL takes pool (a pg.Pool)',
  ssl: 'PostgreSQL takes tls (or sslmode=… in the connection string)',
}

/** A durability backend in PostgreSQL: survives a crash, and several replicas may share it. */
export class PostgresDurability extends KvDurability {
  declare readonly kv: PostgresKv

  /**
   * @param options how to reach the server and which tables to use.
   * @param connection internal: a connection shared with a `PostgresStore` (its `durability()`).
   */
  constructor(options: PostgresDurabilityOptions, connection?: PostgresConnection) {
    if (!connection) refuseUnknownOptions('PostgresDurability', options, POSTGRES_OPTION_NAMES, POSTGRES_MISPLACED)
    super(new PostgresKv(options, connection), { kind: 'postgres', shared: true })
  }

  /** The group commit of every scope's steps. */
  #batches: StepBatches | undefined

  /** @internal The steps of one scope's journal (steps/journal-steps.ts): every scope's steps share one call (steps/steps.ts). */
  steps(scopeId: string): JournalSteps {
    this.#batches ??= this.#stepBatches()
    return new PostgresSteps(this.kv, this.#batches, scopeId)
  }

  #stepBatches(): StepBatches {
    const call = named(`SELECT ${this.kv.tables.steps.steps}($1::text[]) AS answers`)
    return new StepBatches(async (fields) => {
      const { rows } = await this.kv.connection.query<{ answers: (string | null)[] }>({ ...call, values: [fields] })
      return rows[0]!.answers
    })
  }
}
