/**
 * `RedisSteps`: the steps (core/durability/steps/journal-steps.ts) on Redis and Redis Cluster, each
 * one EVALSHA of its own script (lua/admit.lua, journal-send.lua, settle.lua, take-back.lua) that
 * applies the rules of step-rules.ts in Lua. The records are the journal's own, written as
 * write.lua writes them (the envelope, the state and due indexes), so `RedisDurability`'s journal
 * reads what the steps wrote. Each chat's unfinished messages, head first, are a field of one hash
 * under the inbox's hash tag (keys.ts), so a step's keys are one Cluster slot, all in its KEYS.
 *
 * What this side adds to a script's arguments is the text the TypeScript rules make: the records
 * an admit or a send journals (whole envelopes), the lease of a claim around its token, the error
 * of spent runs around its count. The scripts splice them into the records they rewrite and keep
 * every other field as it was written, so a record is what the TypeScript rules would make of it.
 *
 * In a Cluster a message's inbox and its sends' outbox are two slots (their hash tags differ), so a
 * journal's fence and its records, and a settle's marks and its end, are two calls there; the
 * marks are written whatever the fence says, and a fence checked a moment before the records is
 * what a lease that ends during the provider's call gives anyway.
 */
import { unfinishedRunsError } from '../../core/durability/leases/charged-runs.js'
import type {
  AdmitOutcome,
  JournalOutcome,
  JournalSteps,
  RunEnd,
  Settle,
  SettleOutcome,
  StepClaim,
  StepUnavailable,
  TakenBack,
} from '../../core/durability/steps/journal-steps.js'
import { leaseOf, queuedRecord } from '../../core/durability/steps/step-rules.js'
import { recordIndex, type InboxRecord, type Json, type KvPut, type OutboxRecord } from '../../core/spi.js'
import { checkKvOp } from '../common/kv-op-check.js'
import { decodeEnvelope, encodeEnvelope, scoreBound, stateMember, timeHex } from './envelope.js'
import type { StepKeys } from './keys.js'
import type { RedisKv } from './kv.js'
import { REDIS_LIMITS } from './limits.js'
import { ADMIT, JOURNAL_SEND, SETTLE, TAKE_BACK, runScript, type RedisScript } from './scripts.js'

/** The collections the steps write, recorded in the scopes set before their first write. */
const COLLECTIONS = ['inbox', 'outbox'] as const

/** A number no token or run count is: where the scripts put theirs in the text a rule made. */
const MARK = 0.5

/** The steps of one scope's journal in Redis. */
export class RedisSteps implements JournalSteps {
  /** Where the chats hash's HSCAN goes on at the next take-back. */
  #cursor = '0'

  /** `kv`: the scope's view (its connection, its scopes set); `keys`: the scope's step keys. */
  constructor(
    private readonly kv: RedisKv,
    private readonly keys: StepKeys,
  ) {}

  admit(record: InboxRecord, claim: StepClaim, done: (outcome: AdmitOutcome) => void): void {
    this.#answer(done, () => {
      const run = putArgs('inbox', record.id, record)
      const queued = queuedRecord(record)
      const asQueued = putArgs('inbox', record.id, queued)
      const args = [record.id, JSON.stringify(record.chatId), run.member, ...run.write, ...asQueued.write]
      return this.#run('admit', ADMIT, this.keys.inbox, args).then(([type, found]): AdmitOutcome => {
        if (type === 'run') return { type: 'run', record }
        if (type === 'queued') return { type: 'queued', record: queued }
        return { type: 'duplicate', record: valueOf<InboxRecord>(record.id, found) }
      })
    })
  }

  journal(
    inbound: { readonly id: string; readonly token: number } | undefined,
    records: readonly OutboxRecord[],
    done: (outcome: JournalOutcome) => void,
  ): void {
    this.#answer(done, () => {
      const sends = records.flatMap((record) => {
        const put = putArgs('outbox', record.key, record)
        return [record.key, put.write[0], put.write[1], put.member, put.write[2]]
      })
      const fence = inbound ? [inbound.id, inbound.token] : ['', 0]
      const answer = ([type, found]: unknown[]): JournalOutcome => {
        if (type === 'recorded') return { type: 'recorded', record: valueOf<OutboxRecord>(records[0]!.key, found) }
        return type === 'fenced' ? { type: 'fenced' } : { type: 'journaled' }
      }
      if (!inbound) return this.#run('journal a send', JOURNAL_SEND, this.keys.outbox, ['', 0, ...sends]).then(answer)
      if (!this.#clustered)
        return this.#run('journal a send', JOURNAL_SEND, [this.keys.inbox[0]!, ...this.keys.outbox], [...fence, ...sends]).then(answer)
      return this.#run("check a send's fence", JOURNAL_SEND, [this.keys.inbox[0]!], fence).then((reply) =>
        reply[0] === 'fenced' ? answer(reply) : this.#run('journal a send', JOURNAL_SEND, this.keys.outbox, ['', 0, ...sends]).then(answer),
      )
    })
  }

  settle(settle: Settle, claim: StepClaim, done: (outcome: SettleOutcome) => void): void {
    this.#answer(done, () => {
      const marks = settle.marks.flatMap((mark) => [mark.key, JSON.stringify(mark.messageId)])
      const end = settle.inbound ? [settle.inbound.id, settle.inbound.token, ...endArgs(settle.inbound.end)] : []
      const head = [settle.marks.length, ...claimArgs(claim)]
      const answer = ([type, next]: unknown[]): SettleOutcome =>
        type === 'fenced'
          ? { type: 'fenced' }
          : { type: 'settled', next: next === undefined ? undefined : (JSON.parse(String(next)) as InboxRecord) }
      const outbox = marks.length > 0 ? this.keys.outbox : []
      const inbox = end.length > 0 ? this.keys.inbox : []
      if (outbox.length === 0 && inbox.length === 0) return Promise.resolve(answer(['settled']))
      if (!this.#clustered || outbox.length === 0 || inbox.length === 0)
        return this.#run('settle', SETTLE, [...outbox, ...inbox], [...head, ...marks, ...end]).then(answer)
      return this.#run('write sent marks', SETTLE, outbox, [...head, ...marks]).then(() =>
        this.#run('settle', SETTLE, inbox, [0, ...claimArgs(claim), ...end]).then(answer),
      )
    })
  }

  takeBack(claim: StepClaim, maxAttempts: number, limit: number, done: (taken: readonly TakenBack[] | StepUnavailable) => void): void {
    this.#answer(done, () => {
      const [spentBefore, spentAfter] = around(JSON.stringify(unfinishedRunsError(MARK, 'process', claim.now)), String(MARK))
      const args = [
        ...claimArgs(claim),
        maxAttempts,
        limit,
        this.#cursor,
        REDIS_LIMITS.takeBackChatsMax,
        REDIS_LIMITS.takeBackScanCount,
        spentBefore,
        spentAfter,
      ]
      return this.#run('take back', TAKE_BACK, this.keys.inbox, args).then((reply) => {
        this.#cursor = String(reply[0])
        const taken: TakenBack[] = []
        for (let n = 1; n < reply.length; n += 2) {
          taken.push({ dead: Number(reply[n]) === 1, record: JSON.parse(String(reply[n + 1])) as InboxRecord })
        }
        return taken
      })
    })
  }

  get #clustered(): boolean {
    return this.kv.connection.clustered
  }

  /** One script call, once the scope is in the scopes set (at once after its first step). */
  #run(what: string, script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown[]> {
    const call = () => this.kv.connection.run(what, 'journal', (client) => runScript(client, script, keys, args)) as Promise<unknown[]>
    const recording = this.kv.recorded(COLLECTIONS)
    return recording ? recording.then(call) : call()
  }

  /** Answers `done` once, with the step's outcome or, when it failed anywhere, `unavailable`. */
  #answer<T>(done: (outcome: T) => void, step: () => Promise<T>): void {
    let pending: Promise<T>
    try {
      pending = step()
    } catch (error) {
      done(unavailable(error) as T)
      return
    }
    pending.then(done, (error: unknown) => done(unavailable(error) as T))
  }
}

/** A step that failed: nothing it wrote can be vouched for (the contract's retryable answer). */
function unavailable(error: unknown): StepUnavailable {
  return { type: 'unavailable', error }
}

/** What write.lua would be given for a new record: its envelope, state and due score ('' for none), and its state index member. */
function putArgs(
  kind: 'inbox' | 'outbox',
  key: string,
  record: InboxRecord | OutboxRecord,
): { write: [string, string, string]; member: string } {
  const { state, stateTime, due } =
    kind === 'inbox' ? recordIndex('inbox', record as InboxRecord) : recordIndex('outbox', record as OutboxRecord)
  const put: KvPut = { op: 'put', collection: kind, key, expectVersion: 0, value: record as unknown as Json, state, stateTime, due }
  checkKvOp(put)
  return { write: [encodeEnvelope(put, 1), state, due === null ? '' : scoreBound(due)], member: stateMember(stateTime, key) }
}

/** A claim as the scripts take it (step-helpers.lua claim_at): the lease is leaseOf's JSON around its token. */
function claimArgs(claim: StepClaim): string[] {
  const [before, after] = around(JSON.stringify(leaseOf(claim, MARK)), `"token":${MARK}`)
  return [
    JSON.stringify(claim.now),
    timeHex(claim.now),
    `${before}"token":`,
    after,
    JSON.stringify(claim.now + claim.leaseMs),
    claim.owner,
    claim.incarnation,
  ]
}

/** A run's end as settle.lua takes it: its state and two details. */
function endArgs(end: RunEnd): string[] {
  if (end.state === 'done') return ['done', end.note === undefined ? '' : JSON.stringify(end.note), '']
  if (end.state === 'failed') return ['failed', JSON.stringify(end.error), JSON.stringify(end.retryAt)]
  return ['dead', JSON.stringify(end.error), '']
}

/** The text before and after the first `needle`. */
function around(text: string, needle: string): [string, string] {
  const at = text.indexOf(needle)
  return [text.slice(0, at), text.slice(at + needle.length)]
}

function valueOf<T>(key: string, envelope: unknown): T {
  return decodeEnvelope(key, String(envelope)).value as unknown as T
}
