/**
 * Every limit of the PostgreSQL backend, named, with units last, in one place. The timeouts keep
 * an unreachable or hung server from hanging a bot or the CLI; the batch limit keeps one round
 * trip (and the transaction it runs) bounded.
 */
export const POSTGRES_LIMITS = {
  /** How long opening a connection (or waiting for a free one in the pool) may take before it fails. */
  connectTimeoutMs: 5_000,
  /** The server cancels a statement that runs longer (`statement_timeout`, on the pool we create). */
  statementTimeoutMs: 10_000,
  /**
   * How much longer than `statementTimeoutMs` the client waits for an answer before it gives the
   * connection up: the server's own timeout fires first when the server is alive.
   */
  queryTimeoutGraceMs: 2_000,
  /** Connections of a pool we create. */
  poolMax: 10,
  /**
   * Ops sent in one round trip (one transaction): group commit joins calls up to this many, and a
   * single call longer than this is split.
   */
  writeBatchMax: 100,
  /**
   * Write batches (group-commit.ts) in flight at once, each on a connection of its own. A call
   * waits only while this many are out; the calls that queue meanwhile then leave together. As
   * many as the default pool: on a 2-core machine 2 in flight left commits idle (c8 and c50 ran
   * about half as fast as with 10), and 10 measured best of 2, 6 and 10.
   */
  writeBatchesInFlightMax: 10,
  /** Steps carried by one call of the steps function (steps/step-batches.ts): one transaction, one commit. */
  stepBatchMax: 200,
  /** Steps a call carries at least when the queue is shared out over the calls free (steps/step-batches.ts). */
  stepsPerCallMin: 4,
  /** Calls of the steps function in flight at once, each on a connection of its own. */
  stepBatchesInFlightMax: 10,
  /** Chats the sweeper's take-back looks at in one call, at most (it goes on from there at the next). */
  takeBackChatsMax: 1_000,
  /**
   * Counter rows per (scope, collection, state) (counters.ts). Each connection adds to the row of
   * its own shard, so concurrent writers rarely wait on the same counter row.
   */
  countShards: 64,
  /**
   * Rows a process inserts into a table before it first analyzes it (planner-statistics.ts); after
   * that it analyzes each time its inserts reach the rows the table had at the last analysis.
   */
  analyzeInsertedRowsMin: 1_000,
} as const

/** The connection limits a caller may change (on a pool the backend creates). */
export interface PostgresTimeouts {
  /** @default POSTGRES_LIMITS.connectTimeoutMs (5000) */
  connectTimeoutMs?: number
  /** @default POSTGRES_LIMITS.statementTimeoutMs (10000) */
  statementTimeoutMs?: number
  /** @default POSTGRES_LIMITS.poolMax (10) */
  poolMax?: number
}
