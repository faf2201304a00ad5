/**
 * The group committer of `SQLiteKv`: a batch of `write` calls in one `BEGIN IMMEDIATE`
 * transaction, each call keeping its own outcome.
 *
 * A call throws only in rare cases (a constraint, disk full, I/O): compare-and-set conflicts are
 * results, not errors. So the batch first runs with no savepoints at all (two statements a call
 * fewer, the bulk of the CPU a commit spends besides its fsync); if any call throws, that
 * transaction is rolled back whole, nothing of it committed, and the batch runs again with one
 * savepoint per call, so the failing call rolls back alone. Both runs start from the same state and
 * apply the same ops in the same order, so the second gives the outcomes the first would have.
 */
import type BetterSqlite3 from 'better-sqlite3'
import type { KvWriteResult } from '../../core/spi.js'
import { applyOp, type EncodedOp } from './compare-and-set.js'
import { sqliteFailure } from './failures.js'
import type { DurableStatements } from './statements.js'
import type { CallOutcome } from './write-batcher.js'

/** One `write` call waiting for its commit. */
export interface WriteCall {
  scope: string
  ops: EncodedOp[]
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

/** Commits `calls` in one IMMEDIATE transaction; throws when the transaction as a whole failed. */
export function commitCalls(
  db: BetterSqlite3.Database,
  statements: DurableStatements,
  file: string,
  calls: readonly WriteCall[],
): CallOutcome<KvWriteResult[]>[] {
  const tx = transactionStatements(db)
  const outcomes: CallOutcome<KvWriteResult[]>[] = new Array(calls.length)
  tx.begin.run()
  try {
    for (let n = 0; n < calls.length; n++) outcomes[n] = { output: applyCall(statements, file, calls[n]!) }
  } catch {
    if (db.inTransaction) tx.rollback.run()
    return commitWithSavepoints(db, statements, file, calls)
  }
  try {
    tx.commit.run()
  } catch (error) {
    if (db.inTransaction) tx.rollback.run()
    throw error
  }
  return outcomes
}

function applyCall(statements: DurableStatements, file: string, call: WriteCall): KvWriteResult[] {
  const results: KvWriteResult[] = new Array(call.ops.length)
  for (let n = 0; n < call.ops.length; n++) results[n] = applyOp(statements, file, call.scope, call.ops[n]!)
  return results
}

/** The slow path: each call in a savepoint of its own, so one call's failure rolls back that call only. */
function commitWithSavepoints(
  db: BetterSqlite3.Database,
  statements: DurableStatements,
  file: string,
  calls: readonly WriteCall[],
): CallOutcome<KvWriteResult[]>[] {
  const applyOne = db.transaction((call: WriteCall) => applyCall(statements, file, call))
  const applyAll = db.transaction(() =>
    calls.map((call): CallOutcome<KvWriteResult[]> => {
      try {
        return { output: applyOne(call) }
      } catch (error) {
        // Some errors (disk full, I/O) roll back the whole transaction: then no call may commit.
        if (!db.inTransaction) throw error
        return { failed: sqliteFailure(error, file, 'writing the journal', 'journal') }
      }
    }),
  )
  return applyAll.immediate()
}
