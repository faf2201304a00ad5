/**
 * The group committer of a SQLite connection: a batch of write calls (the journals' compare-and-sets
 * and the store's writes alike) in one `BEGIN IMMEDIATE` transaction, each call keeping its own
 * outcome.
 *
 * A call throws only in rare cases (a constraint, disk full, I/O): compare-and-set conflicts are
 * results, not errors. So the batch first runs with no savepoints at all (two statements a call
 * fewer, the bulk of the CPU a commit spends besides its fsync); if any call throws, that
 * transaction is rolled back whole, nothing of it committed, and the batch runs again with one
 * savepoint per call, so the failing call rolls back alone. Both runs start from the same state and
 * apply the same ops in the same order, so the second gives the outcomes the first would have.
 */
import type BetterSqlite3 from 'better-sqlite3'
import type { CallOutcome } from './write-batcher.js'

/** One write call waiting for its commit: its statements, run inside the batch's transaction. */
export interface WriteCall {
  /** Runs the call's statements on the open database; what it returns is the call's output. */
  apply(db: BetterSqlite3.Database): unknown
  /** The error a failure of this call is reported as (the file, what it was doing, journal or store). */
  failure(error: unknown): unknown
}

/** The transaction control statements, prepared once per connection. */
interface TransactionStatements {
  begin: BetterSqlite3.Statement
  commit: BetterSqlite3.Statement
  rollback: BetterSqlite3.Statement
}

const prepared = new WeakMap<BetterSqlite3.Database, TransactionStatements>()

function transactionStatements(db: BetterSqlite3.Database): TransactionStatements {
  let tx = prepared.get(db)
  if (!tx) {
    tx = { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') }
    prepared.set(db, tx)
  }
  return tx
}

/**
 * Commits `calls` in one IMMEDIATE transaction. When the transaction as a whole failed (nothing of
 * it committed), every call fails with that error, as each call reports it.
 */
export function commitCalls(db: BetterSqlite3.Database, calls: readonly WriteCall[]): CallOutcome<unknown>[] {
  try {
    return commitTogether(db, calls)
  } catch (error) {
    return calls.map((call) => ({ failed: call.failure(error) }))
  }
}

function commitTogether(db: BetterSqlite3.Database, calls: readonly WriteCall[]): CallOutcome<unknown>[] {
  const tx = transactionStatements(db)
  const outcomes: CallOutcome<unknown>[] = new Array(calls.length)
  tx.begin.run()
  try {
    for (let n = 0; n < calls.length; n++) outcomes[n] = { output: calls[n]!.apply(db) }
  } catch {
    if (db.inTransaction) tx.rollback.run()
    return commitWithSavepoints(db, calls)
  }
  try {
    tx.commit.run()
  } catch (error) {
    if (db.inTransaction) tx.rollback.run()
    throw error
  }
  return outcomes
}

/** The slow path: each call in a savepoint of its own, so one call's failure rolls back that call only. */
function commitWithSavepoints(db: BetterSqlite3.Database, calls: readonly WriteCall[]): CallOutcome<unknown>[] {
  const applyOne = db.transaction((call: WriteCall) => call.apply(db))
  const applyAll = db.transaction(() =>
    calls.map((call): CallOutcome<unknown> => {
      try {
        return { output: applyOne(call) }
      } catch (error) {
        // Some errors (disk full, I/O) roll back the whole transaction: then no call may commit.
        if (!db.inTransaction) throw error
        return { failed: call.failure(error) }
      }
    }),
  )
  return applyAll.immediate()
}
