/**
 * Group commit for `RedisKv.write`: the compare-and-sets of concurrent `write()` calls share one
 * WRITE script call (scripts.ts). Each *lane* (the whole server, or one hash tag in a Cluster,
 * where a script may only touch one slot) sends at once when idle, so a lone write waits for
 * nothing; ops that arrive while its call is in flight queue, and go together in the next call,
 * at most `REDIS_LIMITS.writeBatchMax` ops per call. When a call's reply comes back with nothing
 * queued, the lane rests until the event loop has run what that reply set going (setImmediate):
 * the callers it answered write again within that turn, and their writes go in one call instead
 * of the first alone and the rest behind it. Ops that waited through a call go at once. The script applies ops in queue order, which
 * is call order, so two ops on one key behave as if written one after the other; each op keeps
 * its own result. A failed call rejects every caller with an op in it.
 */
import type { KvOp, KvWriteResult } from '../../core/spi.js'
import { decodeEnvelope, encodeEnvelope, scoreBound, stateMember } from './envelope.js'
import type { CollectionKeys } from './keys.js'
import { REDIS_LIMITS } from './limits.js'
import { checkKvOp } from '../common/kv-op-check.js'

/** Sends one WRITE call: its KEYS (collection triples) and ARGV (8 per op); resolves to its reply. */
export type SendWrite = (what: string, keys: string[], args: (string | number)[]) => Promise<unknown>

/** One `write()` call waiting for the results of its ops. */
interface Call {
  readonly ops: readonly KvOp[]
  readonly results: KvWriteResult[]
  left: number
  failed: boolean
  resolve(results: KvWriteResult[]): void
  reject(error: unknown): void
}

/** One op in a lane's queue: its collection's keys, its 7 script arguments, and its call. */
interface Pending {
  keys: CollectionKeys
  collection: string
  args: (string | number)[]
  call: Call
  index: number
}

interface Lane {
  queue: Pending[]
  inFlight: number
  /** A reply just came back: writes queue until the turn it started is over. */
  resting: boolean
}

/** Queues and batches the ops of `write()` calls, one lane per group of keys a script may touch together. */
export class GroupCommit {
  readonly #lanes = new Map<string, Lane>()
  readonly #send: SendWrite
  readonly #laneOf: (keys: CollectionKeys) => string

  /** `laneOf` names the lane of a collection's keys: one name for a server, the hash tag in a Cluster. */
  constructor(send: SendWrite, laneOf: (keys: CollectionKeys) => string) {
    this.#send = send
    this.#laneOf = laneOf
  }

  /** Applies `ops` (checked here, so a bad op fails its own call only); `keysOf` gives each collection's keys. */
  write(ops: readonly KvOp[], keysOf: (collection: string) => CollectionKeys): Promise<KvWriteResult[]> {
    if (ops.length === 0) return Promise.resolve([])
    const args = ops.map(argsOf)
    return new Promise((resolve, reject) => {
      const call: Call = { ops, results: new Array(ops.length), left: ops.length, failed: false, resolve, reject }
      const touched = new Set<Lane>()
      ops.forEach((op, index) => {
        const keys = keysOf(op.collection)
        const lane = this.#lane(this.#laneOf(keys))
        lane.queue.push({ keys, collection: op.collection, args: args[index]!, call, index })
        touched.add(lane)
      })
      for (const lane of touched) if (!lane.resting) this.#pump(lane)
    })
  }

  #lane(name: string): Lane {
    let lane = this.#lanes.get(name)
    if (!lane) {
      lane = { queue: [], inFlight: 0, resting: false }
      this.#lanes.set(name, lane)
    }
    return lane
  }

  /** Pumps the lane once the callers a reply answered have made their next writes. */
  #rest(lane: Lane): void {
    if (lane.resting) return
    lane.resting = true
    setImmediate(() => {
      lane.resting = false
      this.#pump(lane)
    })
  }

  /** Sends the queued ops while the lane has room for another call in flight. */
  #pump(lane: Lane): void {
    while (lane.queue.length > 0 && lane.inFlight < REDIS_LIMITS.writeCallsInFlightMax) {
      const batch = lane.queue.splice(0, REDIS_LIMITS.writeBatchMax)
      lane.inFlight++
      const { what, keys, args } = encodeBatch(batch)
      this.#send(what, keys, args)
        .then(
          (reply) => {
            try {
              settle(batch, reply as (number | string)[])
            } catch (error) {
              // An envelope that does not decode must fail its callers, not leave them waiting.
              fail(batch, error)
            }
          },
          (error: unknown) => fail(batch, error),
        )
        .finally(() => {
          lane.inFlight--
          // Ops that waited through that call go at once; with none, wait for the ones it set going.
          if (lane.queue.length > 0) this.#pump(lane)
          else this.#rest(lane)
        })
        .catch(() => {})
    }
  }
}

/** The KEYS (each collection's triple once) and ARGV (the triple's offset, then the op's 7 values) of a batch. */
function encodeBatch(batch: readonly Pending[]): { what: string; keys: string[]; args: (string | number)[] } {
  const offsets = new Map<string, number>()
  const keys: string[] = []
  const collections: string[] = []
  const args: (string | number)[] = []
  for (const pending of batch) {
    let offset = offsets.get(pending.keys.entries)
    if (offset === undefined) {
      offset = keys.length
      offsets.set(pending.keys.entries, offset)
      keys.push(pending.keys.entries, pending.keys.due, pending.keys.states)
      if (!collections.includes(pending.collection)) collections.push(pending.collection)
    }
    args.push(offset, ...pending.args)
  }
  return { what: `write to ${collections.join(' and ')}`, keys, args }
}

function settle(batch: readonly Pending[], reply: (number | string)[]): void {
  batch.forEach(({ call, index }, n) => {
    if (call.failed) return
    call.results[index] = resultOf(call.ops[index]!.key, reply[2 * n]!, reply[2 * n + 1]!)
    if (--call.left === 0) call.resolve(call.results)
  })
}

function fail(batch: readonly Pending[], error: unknown): void {
  for (const { call } of batch) {
    if (call.failed) continue
    call.failed = true
    call.reject(error)
  }
}

/** The 7 script arguments of one op (scripts.ts, WRITE). */
function argsOf(op: KvOp): (string | number)[] {
  checkKvOp(op)
  if (op.op === 'delete') return ['delete', op.key, op.expectVersion, '', '', '', '']
  const due = op.due === null ? '' : scoreBound(op.due)
  return ['put', op.key, op.expectVersion, encodeEnvelope(op, op.expectVersion + 1), op.state, stateMember(op.stateTime, op.key), due]
}

function resultOf(key: string, status: number | string, detail: number | string): KvWriteResult {
  if (status === 1 || status === '1') return { ok: true, version: Number(detail) }
  return { ok: false, current: detail === '' ? undefined : decodeEnvelope(key, String(detail)) }
}
