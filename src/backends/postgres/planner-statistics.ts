/**
 * Keeps the planner's picture of a growing journal table current, so a key lookup stays a primary
 * key lookup however fast the table grows.
 *
 * Why: every write is a named prepared statement, and after five runs PostgreSQL keeps one generic
 * plan per connection, built from the table as it was then. Built while the table was new (a few
 * pages, no column statistics), that plan reads the whole table for every key it looks up (a
 * sequential scan, or the state index walked through), and nothing plans it again as the table
 * grows until autovacuum analyzes it (at the earliest a minute later): on `botmesh bench` 8,000
 * messages ran at half the rate of 2,000, PostgreSQL's CPU per message growing with the table.
 * `ANALYZE` gives the planner the column statistics (one scope, a few collections: the primary key
 * is the only index that narrows a key lookup) and invalidates the cached plans of every
 * connection, which are built again for the table's size.
 *
 * When: each time the rows this process inserted since the last look reach the rows the table had
 * then (at least `analyzeInsertedRowsMin`), so the table is analyzed at each doubling while it
 * grows: a few times while small, rarely once large (autovacuum's own analyses invalidate plans
 * too). One at a time, off the write path (a replica analyzing at the same moment makes it wait, as
 * autovacuum would); a failure is logged once and tried again after as many inserts, never failing
 * a write. `ANALYZE` needs the table's owner (or a superuser): the role that created it.
 */
import type { KvOp, KvWriteResult } from '../../core/spi.js'
import { POSTGRES_LIMITS } from './limits.js'
import type { PostgresLogger } from './connection.js'
import type { DurableTables } from './tables.js'

/** Runs one SQL text and returns its rows. */
export type RunSql = (sql: string) => Promise<readonly Record<string, unknown>[]>

export class PlannerStatistics {
  readonly #tables: DurableTables
  readonly #run: RunSql
  readonly #logger: PostgresLogger
  /** Rows inserted by this process since the table's row count was last read. */
  #inserted = 0
  /** The table's rows when last read (`pg_class.reltuples`); undefined until read. */
  #known: number | undefined
  #running: Promise<void> | undefined
  #warned = false

  constructor(tables: DurableTables, run: RunSql, logger: PostgresLogger) {
    this.#tables = tables
    this.#run = run
    this.#logger = logger
  }

  /** Counts the rows a write inserted (puts at version 0 that won); starts an analysis (in the background) at a doubling. */
  noteWritten(ops: readonly KvOp[], results: readonly KvWriteResult[]): void {
    let inserted = 0
    for (let n = 0; n < ops.length; n++) if (ops[n]!.op === 'put' && ops[n]!.expectVersion === 0 && results[n]!.ok) inserted++
    this.noteInserted(inserted)
  }

  /** Counts rows this process inserted; starts an analysis (in the background) when they reach a doubling. */
  noteInserted(rows: number): void {
    this.#inserted += rows
    if (this.#running || this.#inserted < this.#threshold()) return
    this.#running = this.#analyze().finally(() => (this.#running = undefined))
  }

  /** Resolves once no analysis is running (before the pool is given back). */
  async settled(): Promise<void> {
    await this.#running
  }

  #threshold(): number {
    return Math.max(this.#known ?? 0, POSTGRES_LIMITS.analyzeInsertedRowsMin)
  }

  async #analyze(): Promise<void> {
    const inserted = this.#inserted
    this.#inserted = 0
    try {
      // A table that was already large when this process started needs no help until it doubles.
      if (this.#known === undefined) {
        this.#known = await this.#rows()
        if (inserted < this.#threshold()) {
          this.#inserted += inserted
          return
        }
      }
      await this.#run(`ANALYZE ${this.#tables.durable}`)
      this.#known = await this.#rows()
    } catch (error) {
      if (this.#warned) return
      this.#warned = true
      this.#logger.error(
        `botmesh: could not ANALYZE ${this.#tables.durable} (${(error as Error).message}); writes may read more of the table than they need until autovacuum analyzes it`,
        error,
      )
    }
  }

  async #rows(): Promise<number> {
    const rows = await this.#run(
      `SELECT greatest(reltuples, 0)::float8 AS rows FROM pg_class WHERE oid = to_regclass('${this.#tables.durable}')`,
    )
    return Number(rows[0]?.rows ?? 0)
  }
}
