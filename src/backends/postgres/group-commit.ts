/**
 * Group commit for `PostgresKv.write`: concurrent calls share one round trip and one transaction.
 *
 * - A call goes out at once (in the same tick) when fewer than `writeBatchesInFlightMax` batches
 *   are in flight, so a lone writer waits for nothing. Otherwise it queues, and the calls queued
 *   meanwhile leave together when a batch comes back.
 * - A batch never holds two calls on one (scope, collection, key), nor a key of a batch still in
 *   flight: such a call waits for a later batch, and so does every call behind it on one of its
 *   keys, so calls on one key run in call order and each sees the result of the one before.
 * - Each call keeps its own results. A batch that fails rejects every call in it with the error
 *   (the transaction rolled back: nothing of it is reported as applied).
 */
import type { KvOp, KvWriteResult } from '../../core/spi.js'
import { POSTGRES_LIMITS } from './limits.js'

/** One `write` call: its ops in one scope, and who waits for the results. */
export interface WriteCall {
  scope: string
  ops: readonly KvOp[]
  /** The rows its ops write (rowKey), worked out once. */
  rows: ReadonlySet<string>
  resolve(results: KvWriteResult[]): void
  reject(error: unknown): void
}

/** Sends the calls of one batch in one round trip; resolves to one result list per call, in order. */
export type SendBatch = (calls: readonly WriteCall[]) => Promise<KvWriteResult[][]>

/** The identity of the row an op writes: calls on one such key never share (or overlap) a batch. */
function rowKey(scope: string, op: KvOp): string {
  return JSON.stringify([scope, op.collection, op.key])
}

/** Queues `write` calls and sends them in batches (group commit). */
export class GroupCommit {
  readonly #send: SendBatch
  readonly #queue: WriteCall[] = []
  /** Row keys of the batches in flight (batches in flight never share one). */
  readonly #busy = new Set<string>()
  #inFlight = 0
  #scheduled = false

  constructor(send: SendBatch) {
    this.#send = send
  }

  /** Queues one call's ops in `scope`; resolves to their results once they are committed. */
  write(scope: string, ops: readonly KvOp[]): Promise<KvWriteResult[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ scope, ops, rows: new Set(ops.map((op) => rowKey(scope, op))), resolve, reject })
      // Calls made in the same tick leave together; nothing waits longer than that.
      if (this.#scheduled) return
      this.#scheduled = true
      queueMicrotask(() => {
        this.#scheduled = false
        this.#pump()
      })
    })
  }

  /** Sends batches while the in-flight limit allows and some queued call may go. */
  #pump(): void {
    while (this.#inFlight < POSTGRES_LIMITS.writeBatchesInFlightMax && this.#queue.length > 0) {
      const batch = this.#take()
      if (batch.length === 0) return
      this.#run(batch)
    }
  }

  /** Takes the queued calls that may share the next batch, in call order. */
  #take(): WriteCall[] {
    const batch: WriteCall[] = []
    const taken = new Set<string>()
    /** Keys of calls left waiting: a later call on one of them must wait too, to keep call order. */
    const blocked = new Set<string>()
    let ops = 0
    for (let index = 0; index < this.#queue.length; index++) {
      const call = this.#queue[index]!
      const keys = call.rows
      const full = batch.length > 0 && ops + call.ops.length > POSTGRES_LIMITS.writeBatchMax
      const clash = [...keys].some((key) => this.#busy.has(key) || taken.has(key) || blocked.has(key))
      if (full || clash) {
        for (const key of keys) blocked.add(key)
        continue
      }
      for (const key of keys) taken.add(key)
      batch.push(call)
      ops += call.ops.length
      this.#queue.splice(index--, 1)
    }
    for (const key of taken) this.#busy.add(key)
    return batch
  }

  #run(batch: WriteCall[]): void {
    this.#inFlight++
    const settle = () => {
      this.#inFlight--
      for (const call of batch) for (const key of call.rows) this.#busy.delete(key)
      this.#pump()
    }
    this.#send(batch).then(
      (results) => {
        settle()
        batch.forEach((call, index) => call.resolve(results[index]!))
      },
      (error: unknown) => {
        settle()
        for (const call of batch) call.reject(error)
      },
    )
  }
}
