/**
 * "Old or new, never empty or mixed", checked at the journal level across a crash of the crash
 * matrix: a wrapper records every journal write a generation makes (in call order, which is the
 * order FileDurability applies and commits them, I6) and which ones were acknowledged before the
 * crash; after the crash, the journal reopened from disk must equal the state after some prefix of
 * those writes that holds every acknowledged one. A write is in that state whole or not at all.
 */
import type { DurabilityBackend, Journal, JournalWrite, JournalWriteResult } from '../../src/core/durability/journal/backend.js'
import { recordKey, RECORD_KINDS, type RecordKind } from '../../src/core/durability/journal/records.js'

/** A record as stored: its version and its content as canonical JSON. */
export interface Stored {
  version: number
  json: string
}

/** One put or delete of a recorded write, as a compare-and-set on one record. */
interface ModelOp {
  /** scope, kind and id. */
  key: string
  expectVersion: number
  /** Undefined for a delete. */
  json: string | undefined
}

/** One journal.write call. */
interface RecordedWrite {
  ops: ModelOp[]
  status: 'pending' | 'acknowledged' | 'failed'
  results?: JournalWriteResult[]
}

/** What the check found at one crash. */
export interface PrefixVerdict {
  problems: string[]
  writes: number
  /** Writes acknowledged before the crash: all of them must be on disk. */
  acknowledged: number
  /** Writes not acknowledged that the reopened journal holds anyway (they were on their way). */
  inFlightKept: number
  /** Writes not acknowledged that the reopened journal does not hold. */
  inFlightDropped: number
}

const SEPARATOR = '\u241f'

/** The key of a record in the model. */
function modelKey(scopeId: string, kind: RecordKind, id: string): string {
  return [scopeId, kind, id].join(SEPARATOR)
}

/** JSON with sorted keys, after a JSON round trip (so `undefined` fields vanish as on disk). */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort)
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      )
    return v
  }
  return JSON.stringify(sort(JSON.parse(JSON.stringify(value))))
}

/** Records the writes of one generation of the bot; reads and the rest pass through untouched. */
export class RecordingBackend implements DurabilityBackend {
  readonly kind: string
  readonly shared: boolean
  readonly scoped: boolean
  readonly writes: RecordedWrite[] = []
  /** Purges that deleted something: the model cannot follow them (the workload's retention never purges). */
  purged = 0

  constructor(readonly inner: DurabilityBackend) {
    this.kind = inner.kind
    this.shared = inner.shared
    this.scoped = inner.scoped
  }

  start = () => this.inner.start()
  stop = () => this.inner.stop()
  now = () => this.inner.now()
  scopes = () => this.inner.scopes()

  journal(scopeId: string): Journal {
    const inner = this.inner.journal(scopeId)
    return {
      scopeId,
      read: (kind, ids) => inner.read(kind, ids),
      due: (kind, until, limit) => inner.due(kind, until, limit),
      list: (kind, query) => inner.list(kind, query),
      count: (kind) => inner.count(kind),
      countOlder: (kind, state, olderThan, limit) => inner.countOlder(kind, state, olderThan, limit),
      purge: async (kind, state, olderThan, limit) => {
        const purged = await inner.purge(kind, state, olderThan, limit)
        this.purged += purged
        return purged
      },
      write: (name, writes) => {
        // Recorded before the call: FileDurability applies the ops before its first await (I6).
        const recorded: RecordedWrite = { ops: writes.map((write) => modelOp(scopeId, write)), status: 'pending' }
        this.writes.push(recorded)
        const written = inner.write(name, writes)
        written.then(
          (results) => Object.assign(recorded, { status: 'acknowledged', results }),
          () => (recorded.status = 'failed'),
        )
        return written
      },
    }
  }

  /** The status of every write now (take it before the crash is made to reach the disk). */
  statuses(): RecordedWrite['status'][] {
    return this.writes.map((write) => write.status)
  }

  /** Every record key the writes touched. */
  keys(): Set<string> {
    return new Set(this.writes.flatMap((write) => write.ops.map((op) => op.key)))
  }
}

function modelOp(scopeId: string, write: JournalWrite): ModelOp {
  if ('delete' in write) return { key: modelKey(scopeId, write.kind, write.delete), expectVersion: write.expectVersion, json: undefined }
  return {
    key: modelKey(scopeId, write.kind, recordKey(write.kind, write.record)),
    expectVersion: write.expectVersion,
    json: canonicalJson(write.record),
  }
}

/** Reads `keys` (and the total count of each scope and kind) from a backend reopened on the files. */
export async function readRecords(
  backend: DurabilityBackend,
  keys: Iterable<string>,
): Promise<{ records: Map<string, Stored>; counts: Map<string, number> }> {
  const byScope = new Map<string, Map<RecordKind, string[]>>()
  for (const key of keys) {
    const [scopeId, kind, id] = key.split(SEPARATOR) as [string, RecordKind, string]
    const kinds = byScope.get(scopeId) ?? byScope.set(scopeId, new Map()).get(scopeId)!
    ;(kinds.get(kind) ?? kinds.set(kind, []).get(kind)!).push(id)
  }
  const records = new Map<string, Stored>()
  const counts = new Map<string, number>()
  for (const [scopeId, kinds] of byScope) {
    const journal = backend.journal(scopeId)
    for (const kind of RECORD_KINDS) {
      const ids = kinds.get(kind) ?? []
      const found = await journal.read(kind, ids)
      found.forEach((record, n) => {
        if (record) records.set(modelKey(scopeId, kind, ids[n]!), { version: record.version, json: canonicalJson(record.record) })
      })
      const byState = await journal.count(kind)
      counts.set(
        `${scopeId}${SEPARATOR}${kind}`,
        Object.values(byState).reduce((sum, n) => sum + n, 0),
      )
    }
  }
  return { records, counts }
}

/**
 * Finds the prefix of `writes` (applied to `base` as compare-and-sets) that the reopened journal
 * holds, among those that include every write acknowledged before the crash (`statuses`).
 */
export function checkPrefix(
  base: ReadonlyMap<string, Stored>,
  writes: readonly RecordedWrite[],
  statuses: readonly RecordedWrite['status'][],
  observed: { records: ReadonlyMap<string, Stored>; counts: ReadonlyMap<string, number> },
): PrefixVerdict {
  const problems: string[] = []
  // A write that failed before the crash was rolled back with every write after it (I5): none is expected here.
  const failedEarly = statuses.filter((status) => status === 'failed').length
  if (failedEarly > 0) problems.push(`${failedEarly} write(s) failed before the crash (no fault was injected)`)
  const applicable = writes.filter((_, n) => statuses[n] !== 'failed')
  const applicableStatuses = statuses.filter((status) => status !== 'failed')
  const required = applicableStatuses.lastIndexOf('acknowledged') + 1
  const acknowledged = applicableStatuses.filter((status) => status === 'acknowledged').length

  const state = new Map(base)
  const keys = new Set([...base.keys(), ...observed.records.keys(), ...applicable.flatMap((write) => write.ops.map((op) => op.key))])
  const same = (key: string) => {
    const [a, b] = [state.get(key), observed.records.get(key)]
    return a === undefined ? b === undefined : b !== undefined && a.version === b.version && a.json === b.json
  }
  let mismatched = [...keys].filter((key) => !same(key)).length
  let matched: number | undefined
  for (let n = 0; n <= applicable.length; n++) {
    if (matched === undefined && n >= required && mismatched === 0) matched = n
    const write = applicable[n]
    if (!write) break
    const modelled = write.ops.map((op) => {
      const current = state.get(op.key)
      if ((current?.version ?? 0) !== op.expectVersion) return { ok: false }
      const before = same(op.key)
      if (op.json === undefined) state.delete(op.key)
      else state.set(op.key, { version: op.expectVersion + 1, json: op.json })
      mismatched += (same(op.key) ? 0 : 1) - (before ? 0 : 1)
      return { ok: true, version: op.json === undefined ? 0 : op.expectVersion + 1 }
    })
    // The model must agree with what the backend answered, or the verdict means nothing.
    if (
      write.results &&
      JSON.stringify(write.results.map((r) => (r.ok ? { ok: true, version: r.version } : { ok: false }))) !== JSON.stringify(modelled)
    ) {
      problems.push(`write ${n}: the backend answered ${JSON.stringify(write.results)}, the model ${JSON.stringify(modelled)}`)
    }
  }
  // Nothing but the writes' records: no record the model does not know.
  const present = new Map<string, number>()
  for (const key of observed.records.keys()) {
    const group = key.split(SEPARATOR).slice(0, 2).join(SEPARATOR)
    present.set(group, (present.get(group) ?? 0) + 1)
  }
  for (const [group, count] of observed.counts) {
    if (count !== (present.get(group) ?? 0))
      problems.push(`${group.replace(SEPARATOR, ' ')}: the journal counts ${count} records, ${present.get(group) ?? 0} are known`)
  }
  if (matched === undefined) {
    const lost = [...keys].filter((key) => !same(key)).slice(0, 5)
    problems.push(
      `the reopened journal is no prefix of the ${applicable.length} writes holding the ${acknowledged} acknowledged ones ` +
        `(last acknowledged: write ${required}); at the end of the writes these differ: ${lost.map((key) => `${key.replaceAll(SEPARATOR, ' ')} on disk ${JSON.stringify(observed.records.get(key)?.version)} model ${JSON.stringify(state.get(key)?.version)}`).join('; ')}`,
    )
  }
  const inFlight = applicableStatuses.filter((status) => status === 'pending').length
  const inFlightKept = matched === undefined ? 0 : applicableStatuses.slice(0, matched).filter((status) => status === 'pending').length
  return { problems, writes: applicable.length, acknowledged, inFlightKept, inFlightDropped: inFlight - inFlightKept }
}
