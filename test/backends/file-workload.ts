/**
 * Seeded write workloads for the file backend's crash tests, and the model they are checked
 * against. Calls of one group run concurrently and touch disjoint keys, so any subset of a group
 * applied on top of the groups before it is a state an acknowledged prefix can produce.
 */
import type { DurableKv, Json, KvOp } from '../../src/core/durability/journal/kv.js'

/** One `write` call on one scope. */
export interface Call {
  scope: string
  ops: KvOp[]
}

interface ModelEntry {
  version: number
  value: Json
  state: string
  stateTime: number
  due: number | null
}

/** Entries by `scope|collection|key`. */
export type ModelState = Map<string, ModelEntry>

const SCOPES = ['a', 'b']
const COLLECTIONS = ['inbox', 'outbox']

/** Plans `calls` concurrent calls on top of `model`: inserts, and updates/deletes of keys split between the calls. */
export function planGroup(random: () => number, model: ModelState, label: string, calls: number): Call[] {
  const existing = [...model.keys()].sort()
  const planned: Call[] = []
  for (let c = 0; c < calls; c++) {
    const scope = SCOPES[c % SCOPES.length]!
    const ops: KvOp[] = []
    const inserts = 1 + Math.floor(random() * 2)
    for (let o = 0; o < inserts; o++) {
      const collection = COLLECTIONS[Math.floor(random() * COLLECTIONS.length)]!
      ops.push(put(collection, `${label}-${c}-${o}`, 0, random))
    }
    // Keys of this call's share only (index % calls), so concurrent calls never touch one key.
    const mine = existing.filter((id, n) => n % calls === c && id.startsWith(`${scope}|`))
    for (const id of mine) {
      if (random() > 0.3) continue
      const [, collection, key] = id.split('|') as [string, string, string]
      const entry = model.get(id)!
      ops.push(
        random() < 0.2 ? { op: 'delete', collection, key, expectVersion: entry.version } : put(collection, key, entry.version, random),
      )
    }
    planned.push({ scope, ops })
  }
  return planned
}

function put(collection: string, key: string, expectVersion: number, random: () => number): KvOp {
  const padding = 'x'.repeat(Math.floor(random() * 300))
  return {
    op: 'put',
    collection,
    key,
    expectVersion,
    value: { key, n: Math.floor(random() * 1e6), padding, unicode: 'é👋' },
    state: random() < 0.5 ? 'pending' : 'done',
    stateTime: Math.floor(random() * 1e6),
    due: random() < 0.5 ? null : Math.floor(random() * 1e6),
  }
}

/** The model after `call`. */
export function applyCall(model: ModelState, call: Call): ModelState {
  const next = new Map(model)
  for (const op of call.ops) {
    const id = `${call.scope}|${op.collection}|${op.key}`
    if (op.op === 'delete') next.delete(id)
    else next.set(id, { version: op.expectVersion + 1, value: op.value, state: op.state, stateTime: op.stateTime, due: op.due })
  }
  return next
}

/** Runs a call; every op of a planned call must win its compare-and-set. */
export async function runCall(kv: DurableKv, call: Call): Promise<void> {
  const results = await kv.scope!(call.scope).write(call.ops)
  const lost = results.findIndex((result) => !result.ok)
  if (lost !== -1)
    throw new Error(`planned op ${lost} of a call on scope ${call.scope} lost its compare-and-set: ${JSON.stringify(results[lost])}`)
}

/** A state in a canonical text form. */
export function canonical(model: ModelState): string {
  return JSON.stringify([...model.entries()].sort(([a], [b]) => (a < b ? -1 : 1)))
}

/** Reads every key the plan touches back from a journal, in the canonical form. */
export async function readState(kv: DurableKv, ids: readonly string[]): Promise<string> {
  const model: ModelState = new Map()
  for (const id of ids) {
    const [scope, collection, key] = id.split('|') as [string, string, string]
    const [entry] = await kv.scope!(scope).get(collection, [key])
    if (entry) model.set(id, { version: entry.version, value: entry.value, state: entry.state, stateTime: entry.stateTime, due: entry.due })
  }
  return canonical(model)
}

/** Every state an acknowledged prefix can leave: all groups before `groups`, plus a subset `calls` of group `groups`. */
export function candidateStates(base: ModelState, groups: readonly Call[][]): { groups: number; calls: number[]; state: string }[] {
  const candidates: { groups: number; calls: number[]; state: string }[] = []
  let prefix = base
  for (let g = 0; g <= groups.length; g++) {
    const group = groups[g] ?? []
    for (let mask = 0; mask < 1 << group.length; mask++) {
      const calls = group.map((_, c) => c).filter((c) => mask & (1 << c))
      candidates.push({ groups: g, calls, state: canonical(calls.reduce((model, c) => applyCall(model, group[c]!), prefix)) })
    }
    prefix = group.reduce(applyCall, prefix)
  }
  return candidates
}
