/**
 * How a batch of `write` calls (group-commit.ts) reaches the server:
 *
 * - One call of one op: one autocommit prepared statement, conditional on the version.
 * - Anything more: every op's statement, parameters inlined (literal.ts), in one simple-protocol
 *   message, which the server runs as one transaction (one round trip, one commit). Each op is
 *   still its own compare-and-set with its own result. They run ordered by (scope, collection,
 *   key), the order of the calls kept among ops on one key, so two concurrent batches lock rows in
 *   one order and cannot deadlock on them.
 * - A CAS that loses returns the current entry from the same statement. When that statement's
 *   snapshot cannot tell (the winner committed after it began), one fresh read follows.
 */
import type { KvOp, KvWriteResult } from '../../core/spi.js'
import type { QueryResult } from 'pg'
import { POSTGRES_LIMITS } from './limits.js'
import { inlineParameters, type SqlValue } from './literal.js'
import type { Prepared, Statements } from './prepared.js'
import { outcome, toEntry, UNSURE, type EntryRow, type Outcome } from './entry-rows.js'
import type { WriteCall } from './group-commit.js'

/** Runs a prepared statement, or several statements as one message (no values). */
export type RunQuery = (statement: Prepared | string, values?: unknown[]) => Promise<QueryResult<EntryRow & Record<string, unknown>>>

/** One op and the scope it writes in. */
interface ScopedOp {
  scope: string
  op: KvOp
}

/** Sends the calls of one batch; one result list per call, in call order. */
export async function sendBatch(statements: Statements, run: RunQuery, calls: readonly WriteCall[]): Promise<KvWriteResult[][]> {
  const ops = calls.flatMap((call) => call.ops.map((op) => ({ scope: call.scope, op })))
  const outcomes: Outcome[] = []
  if (ops.length === 1) {
    const { statement, values } = statementFor(statements, ops[0]!)
    outcomes.push(outcome(ops[0]!.op, (await run(statement, values)).rows[0]))
  } else {
    // The calls of a batch never share a row (group-commit.ts), but one call may write a key twice:
    // only statements run one after another see the first write.
    const distinct = calls.every((call) => call.rows.size === call.ops.length)
    // Only a single call longer than the limit is split (group-commit.ts never joins past it).
    for (let start = 0; start < ops.length; start += POSTGRES_LIMITS.writeBatchMax) {
      const chunk = ops.slice(start, start + POSTGRES_LIMITS.writeBatchMax)
      outcomes.push(...(await (distinct ? writeArrays : writeMany)(statements, run, chunk)))
    }
  }
  const results = await settle(statements, run, ops, outcomes)
  let next = 0
  return calls.map((call) => results.slice(next, (next += call.ops.length)))
}

/** Ops on distinct keys, one prepared statement over arrays (batch-statement.ts); outcomes in the order given. */
async function writeArrays(statements: Statements, run: RunQuery, ops: readonly ScopedOp[]): Promise<Outcome[]> {
  const column = <T>(of: (op: ScopedOp, n: number) => T) => ops.map(of)
  const { rows } = await run(statements.WRITE_BATCH, [
    column((_, n) => n),
    column(({ scope }) => scope),
    column(({ op }) => op.collection),
    column(({ op }) => op.key),
    column(({ op }) => op.expectVersion),
    column(({ op }) => (op.op === 'put' ? JSON.stringify(op.value) : null)),
    column(({ op }) => (op.op === 'put' ? op.state : null)),
    column(({ op }) => (op.op === 'put' ? op.stateTime : null)),
    column(({ op }) => (op.op === 'put' ? op.due : null)),
  ])
  return ops.map(({ op }, n) => {
    const row = rows[n] as (EntryRow & { won?: string | null }) | undefined
    if (row?.won != null) return { ok: true, version: Number(row.won) }
    return outcome(op, row && row.version !== null ? row : undefined)
  })
}

/** Several ops, one message, one transaction; outcomes in the order given. */
async function writeMany(statements: Statements, run: RunQuery, ops: readonly ScopedOp[]): Promise<Outcome[]> {
  const order = ops.map((_, index) => index).sort((a, b) => compareOps(ops[a]!, ops[b]!) || a - b)
  const text = order
    .map((index) => {
      const { statement, values } = statementFor(statements, ops[index]!)
      return inlineParameters(statement.text, values)
    })
    .join(';\n')
  const answer = (await run(text)) as QueryResult<EntryRow> | QueryResult<EntryRow>[]
  const perStatement = Array.isArray(answer) ? answer : [answer]
  const outcomes: Outcome[] = new Array(ops.length)
  order.forEach((opIndex, position) => {
    outcomes[opIndex] = outcome(ops[opIndex]!.op, perStatement[position]!.rows[0])
  })
  return outcomes
}

/** Resolves the outcomes whose statement could not see the winner, with one fresh read per (scope, collection). */
async function settle(statements: Statements, run: RunQuery, ops: readonly ScopedOp[], outcomes: readonly Outcome[]) {
  const results = [...outcomes] as (KvWriteResult | typeof UNSURE)[]
  const unsure = new Map<string, number[]>()
  outcomes.forEach((result, index) => {
    if (result !== UNSURE) return
    const group = JSON.stringify([ops[index]!.scope, ops[index]!.op.collection])
    unsure.set(group, [...(unsure.get(group) ?? []), index])
  })
  for (const indexes of unsure.values()) {
    const { scope, op } = ops[indexes[0]!]!
    const keys = indexes.map((index) => ops[index]!.op.key)
    const { rows } = await run(statements.SELECT_ENTRIES, [scope, op.collection, [...new Set(keys)]])
    const byKey = new Map(rows.map((row) => [row.key!, row]))
    indexes.forEach((index, n) => {
      const row = byKey.get(keys[n]!)
      results[index] = { ok: false, current: row ? toEntry(keys[n]!, row) : undefined }
    })
  }
  return results as KvWriteResult[]
}

function statementFor(statements: Statements, { scope, op }: ScopedOp): { statement: Prepared; values: SqlValue[] } {
  const where = [scope, op.collection, op.key]
  if (op.op === 'delete') return { statement: statements.DELETE_ENTRY, values: [...where, op.expectVersion] }
  const fields = [JSON.stringify(op.value), op.state, op.stateTime, op.due]
  if (op.expectVersion === 0) return { statement: statements.INSERT_ENTRY, values: [...where, ...fields] }
  return { statement: statements.UPDATE_ENTRY, values: [...where, op.expectVersion, ...fields] }
}

function compareOps(a: ScopedOp, b: ScopedOp): number {
  if (a.scope !== b.scope) return a.scope < b.scope ? -1 : 1
  if (a.op.collection !== b.op.collection) return a.op.collection < b.op.collection ? -1 : 1
  if (a.op.key !== b.op.key) return a.op.key < b.op.key ? -1 : 1
  return 0
}
