/**
 * `rekey`: rewrite a journal's records under the current encryption key, so an older key can be
 * retired. Every inbox and outbox record of the chosen scopes is read through the state-time
 * index a page at a time; one whose content is clear, sealed under another key the ring holds, or
 * sealed in an older format (format 1 binds neither the scope nor the chat) is opened and sealed
 * again under the current key in the current format, and written back by compare-and-set on the
 * version read (a bot changing it meanwhile writes it under its own current key anyway: the record
 * is read again and judged afresh, once). Ids, states and times do not change, so paging goes on
 * from where it was and running bots are not disturbed. A record sealed under a key the ring lacks
 * is counted, named and left as it is.
 */
import type { DurabilityBackend, Journal, JournalPut, Versioned } from '../core/durability/journal/backend.js'
import {
  INBOX_STATES,
  OUTBOX_STATES,
  recordIndex,
  recordKey,
  type InboxRecord,
  type OutboxRecord,
  type RecordOf,
} from '../core/durability/journal/records.js'
import type { KeyRing } from '../core/encryption/key-ring.js'
import { RecordSealer, SEALED_FIELDS } from '../core/encryption/record-sealer.js'
import { boundScope } from '../core/encryption/sealed-backend.js'
import { sealedFormatOf } from '../core/encryption/sealed-text.js'
import { sealedUnder } from './sealed.js'
import type { WorkKind } from './records.js'

/** Records read and written per round trip. */
export const REKEY_PAGE = 500

/** What a rekey did (or, dry, would do). */
export interface RekeySummary {
  scopes: string[]
  /** The key every record is now sealed under. */
  current: string
  /** Records read. */
  scanned: number
  /** Records rewritten under the current key (dry: to rewrite). */
  rewritten: number
  /** The same, by where their content was: under a key id, or 'clear'. */
  from: Record<string, number>
  /** Records already under the current key, or holding no content. */
  unchanged: number
  /** Records sealed under keys the ring lacks: left as they are. */
  unreadable: { count: number; keys: string[] }
  /** Records whose content the right key does not open (altered, or moved to another scope or chat): left as they are. */
  altered: number
  /** Records a bot changed between the read and the write twice in a row: not rewritten this time. */
  conflicts: number
  dryRun: boolean
}

export interface RekeyOptions {
  dryRun?: boolean
  onProgress?(scanned: number, rewritten: number): void
  signal?: AbortSignal
}

/** Rewrites every record of `scopes` that is not under the ring's current key (or counts them, dry). */
export async function rekeyJournal(
  backend: DurabilityBackend,
  ring: KeyRing,
  scopes: readonly string[],
  options: RekeyOptions = {},
): Promise<RekeySummary> {
  const run = new RekeyRun(new RecordSealer(ring), options)
  for (const scope of scopes) {
    const journal = backend.journal(scope)
    run.scope = boundScope(backend, scope)
    for (const [kind, states] of [
      ['inbox', INBOX_STATES],
      ['outbox', OUTBOX_STATES],
    ] as const) {
      for (const state of states) await run.lane(journal, kind, state)
    }
  }
  return run.summary([...scopes], ring.current!)
}

/** A record to write again, and where its content was. */
interface Rewrite {
  write: JournalPut
  /** The record's key. */
  key: string
  was: string
}

class RekeyRun {
  /** The scope being rewritten: a record's content is bound to it. */
  scope = ''
  scanned = 0
  rewritten = 0
  unchanged = 0
  conflicts = 0
  altered = 0
  readonly from = new Map<string, number>()
  readonly unreadable = new Map<string, number>()

  constructor(
    private readonly sealer: RecordSealer,
    private readonly options: RekeyOptions,
  ) {}

  /** One state of one kind, a page at a time. */
  async lane(journal: Journal, kind: WorkKind, state: string): Promise<void> {
    let after: { stateTime: number; key: string } | undefined
    while (!this.options.signal?.aborted) {
      const page = await journal.list(kind, { state, after, limit: REKEY_PAGE })
      this.scanned += page.length
      await this.page(journal, kind, page, true)
      this.options.onProgress?.(this.scanned, this.rewritten)
      if (page.length < REKEY_PAGE) return
      const last = page.at(-1)!.record
      after = { stateTime: recordIndex(kind, last).stateTime, key: recordKey(kind, last) }
    }
  }

  /** Judges each record of a page and writes back those to rewrite; those a bot changed meanwhile are judged again once. */
  async page(journal: Journal, kind: WorkKind, page: readonly Versioned<RecordOf[WorkKind]>[], again: boolean): Promise<void> {
    const rewrites = page.flatMap(({ record, version }) => this.#judge(kind, record, version))
    if (rewrites.length === 0) return
    if (this.options.dryRun) {
      for (const { was } of rewrites) this.#rewrote(was)
      return
    }
    const results = await journal.write(
      'operator.rekey',
      rewrites.map(({ write }) => write),
    )
    const lost: string[] = []
    results.forEach((result, n) => (result.ok ? this.#rewrote(rewrites[n]!.was) : lost.push(rewrites[n]!.key)))
    if (lost.length === 0) return
    if (!again) {
      this.conflicts += lost.length
      return
    }
    const fresh = (await journal.read(kind, lost)).filter((found) => found !== undefined)
    await this.page(journal, kind, fresh, false)
  }

  summary(scopes: string[], current: string): RekeySummary {
    return {
      scopes,
      current,
      scanned: this.scanned,
      rewritten: this.rewritten,
      from: Object.fromEntries([...this.from].sort()),
      unchanged: this.unchanged,
      unreadable: { count: [...this.unreadable.values()].reduce((a, b) => a + b, 0), keys: [...this.unreadable.keys()].sort() },
      altered: this.altered,
      conflicts: this.conflicts,
      dryRun: this.options.dryRun ?? false,
    }
  }

  #judge(kind: WorkKind, record: RecordOf[WorkKind], version: number): Rewrite[] {
    if (!this.sealer.needsRekey(kind, record)) {
      this.unchanged++
      return []
    }
    const unreadable = this.sealer.unreadable(kind, record)
    if (unreadable) {
      this.unreadable.set(unreadable.keyId, (this.unreadable.get(unreadable.keyId) ?? 0) + 1)
      return []
    }
    const opened = this.sealer.open(this.scope, kind, record)
    if (opened.unreadable) {
      this.altered++
      return []
    }
    const sealed = this.sealer.seal(this.scope, kind, opened.record)
    const key = recordKey(kind, record)
    return [{ write: { kind, record: sealed, expectVersion: version }, key, was: origin(kind, record) }]
  }

  #rewrote(was: string): void {
    this.rewritten++
    this.from.set(was, (this.from.get(was) ?? 0) + 1)
  }
}

/** Where a record's content is before the rewrite: 'clear', a key id, or a key id and the older format ("k1, format 1"). */
function origin(kind: WorkKind, record: RecordOf[WorkKind]): string {
  const keyId = sealedUnder(kind, record as InboxRecord | OutboxRecord)
  if (keyId === undefined) return 'clear'
  const older = SEALED_FIELDS[kind]!.some((field) => sealedFormatOf((record as unknown as Record<string, unknown>)[field]) === 1)
  return older ? `${keyId}, format 1` : keyId
}
