/**
 * `RedisSteps`: the steps (core/durability/steps/journal-steps.ts) on Redis and Redis Cluster. Each
 * step is a function of the STEPS script (lua/steps.lua, which runs admit.lua, journal-send.lua,
 * settle.lua, take-back.lua) that applies the rules of step-rules.ts in Lua, and the steps of
 * concurrent messages share its calls: one call in flight per lane, carrying every step queued
 * meanwhile (step-batch.ts). The records are the journal's own, written as write.lua writes them
 * (the envelope, the state and due indexes), so `RedisDurability`'s journal reads what the steps
 * wrote. Each chat's unfinished messages, head first, are a field of one hash under the inbox's
 * hash tag (keys.ts), so every key a step touches is in its call's KEYS.
 *
 * What this side adds to a step's arguments is the text the TypeScript rules make: the records
 * an admit or a send journals (whole envelopes), the lease of a claim around its token, the error
 * of spent runs around its count. The scripts splice them into the records they rewrite and keep
 * every other field as it was written, so a record is what the TypeScript rules would make of it.
 *
 * On one server a scope is one lane, its inbox and outbox in every call. In a Cluster a scope's
 * inbox and outbox are two slots (their hash tags differ), so two lanes: a journal's fence and its
 * records, and a settle's marks and its end, are two steps, the second queued once the first is
 * answered; the marks are written whatever the fence says, and a fence checked a moment before the
 * records is what a lease that ends during the provider's call gives anyway.
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
  TakeBackPass,
  TakenBack,
} from '../../core/durability/steps/journal-steps.js'
import { leaseOf, queuedRecord, takenBackOf } from '../../core/durability/steps/step-rules.js'
import { RedisCommandError } from '../../core/errors/errors.js'
import { recordIndex, type InboxRecord, type Json, type KvPut, type OutboxRecord } from '../../core/backend-internals.js'
import { checkKvOp } from '../common/kv-op-check.js'
import { decodeEnvelope, encodeEnvelope, scoreBound, stateMember, timeHex } from './envelope.js'
import type { StepKeys } from './keys.js'
import type { RedisKv } from './kv.js'
import { REDIS_LIMITS } from './limits.js'
import { STEPS, runScript } from './scripts.js'
import { StepBatch, type QueuedStep } from './step-batch.js'

/** The collections the steps write, recorded in the scopes set before their first write. */
const COLLECTIONS = ['inbox', 'outbox'] as const

/** A number no token or run count is: where the scripts put theirs in the text a rule made. */
const MARK = 0.5

type Reply = readonly unknown[]

/** The steps of one scope's journal in Redis. */
export class RedisSteps implements JournalSteps {
  /** Where the chats hash's HSCAN goes on at the next take-back. */
  #cursor = '0'
  /** The lane of the steps on the inbox, and of those on the outbox: one lane on one server. */
  readonly #inbox: StepBatch
  readonly #outbox: StepBatch

  /** `kv`: the scope's view (its connection, its scopes set); `keys`: the scope's step keys. */
  constructor(
    private readonly kv: RedisKv,
    keys: StepKeys,
  ) {
    if (kv.connection.clustered) {
      this.#inbox = new StepBatch(this.#sender(keys.inbox, 0, ''))
      this.#outbox = new StepBatch(this.#sender(keys.outbox, '', 0))
    } else {
      this.#inbox = this.#outbox = new StepBatch(this.#sender([...keys.inbox, ...keys.outbox], 0, keys.inbox.length))
    }
  }

  admit(record: InboxRecord, claim: StepClaim, done: (outcome: AdmitOutcome) => void): void {
    tried(done, () => {
      const run = putArgs('inbox', record.id, record)
      const queued = queuedRecord(record)
      const asQueued = putArgs('inbox', record.id, queued)
      const args = [record.id, JSON.stringify(record.chatId), run.member, ...run.write, ...asQueued.write]
      this.#step(this.#inbox, 'admit', 'admit', args, false, done, ([type, found]: Reply): AdmitOutcome => {
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
    tried(done, () => {
      const sends = records.flatMap((record) => {
        const put = putArgs('outbox', record.key, record)
        return [record.key, put.write[0], put.write[1], put.member, put.write[2]]
      })
      const answer = ([type, found]: Reply): JournalOutcome => {
        if (type === 'recorded') return { type: 'recorded', record: valueOf<OutboxRecord>(records[0]!.key, found) }
        return type === 'fenced' ? { type: 'fenced' } : { type: 'journaled' }
      }
      const journal = (fence: (string | number)[], then: (outcome: JournalOutcome) => void) =>
        this.#step(this.#outbox, 'journal a send', 'journal', [...fence, ...sends], false, then, answer)
      if (!inbound) return journal(['', 0], done)
      const fence = [inbound.id, inbound.token]
      if (this.#inbox === this.#outbox) return journal(fence, done)
      this.#step(
        this.#inbox,
        "check a send's fence",
        'journal',
        fence,
        false,
        (outcome) => {
          if (outcome.type !== 'journaled') return done(outcome)
          journal(['', 0], done)
        },
        answer,
      )
    })
  }

  settle(settle: Settle, claim: StepClaim, done: (outcome: SettleOutcome) => void): void {
    if (settle.marks.length === 0 && !settle.inbound) return done({ type: 'settled', next: undefined })
    tried(done, () => {
      const marks = settle.marks.flatMap((mark) => [mark.key, JSON.stringify(mark.messageId)])
      const end = settle.inbound ? [settle.inbound.id, settle.inbound.token, ...endArgs(settle.inbound.end)] : []
      const answer = ([type, next]: Reply): SettleOutcome =>
        type === 'fenced'
          ? { type: 'fenced' }
          : { type: 'settled', next: next === undefined ? undefined : (JSON.parse(String(next)) as InboxRecord) }
      const write = (lane: StepBatch, what: string, count: number, args: (string | number)[], then: (outcome: SettleOutcome) => void) =>
        this.#step(lane, what, 'settle', [count, ...claimArgs(claim), ...args], true, then, answer)
      if (end.length === 0) return write(this.#outbox, 'write sent marks', settle.marks.length, marks, done)
      if (marks.length === 0 || this.#inbox === this.#outbox)
        return write(this.#inbox, 'settle', settle.marks.length, [...marks, ...end], done)
      write(this.#outbox, 'write sent marks', settle.marks.length, marks, (outcome) => {
        if (outcome.type === 'unavailable') return done(outcome)
        write(this.#inbox, 'settle', 0, end, done)
      })
    })
  }

  takeBack(claim: StepClaim, pass: TakeBackPass, done: (taken: readonly TakenBack[] | StepUnavailable) => void): void {
    tried(done, () => {
      const [spentBefore, spentAfter] = around(JSON.stringify(unfinishedRunsError(MARK, 'process', claim.now)), String(MARK))
      const args = [
        ...claimArgs(claim),
        pass.maxAttempts,
        pass.limit,
        this.#cursor,
        REDIS_LIMITS.takeBackChatsMax,
        REDIS_LIMITS.takeBackScanCount,
        spentBefore,
        spentAfter,
        pass.alone ?? '',
      ]
      this.#step(this.#inbox, 'take back', 'take-back', args, false, done, (reply: Reply): TakenBack[] => {
        // An alone pass looks at its message only: the scan goes on where the last pass left it.
        if (pass.alone === undefined) this.#cursor = String(reply[0])
        const taken: TakenBack[] = []
        for (let n = 1; n < reply.length; n += 2) taken.push(takenBackOf(String(reply[n]), String(reply[n + 1])))
        return taken
      })
    })
  }

  /** Queues one step on `lane`; `outcomeOf` reads its answer, and a failure anywhere answers `unavailable`. */
  #step<T>(
    lane: StepBatch,
    what: string,
    name: string,
    args: readonly (string | number)[],
    rides: boolean,
    done: (outcome: NoInfer<T> | StepUnavailable) => void,
    outcomeOf: (reply: Reply) => T,
  ): void {
    const answer: QueuedStep['answer'] = (reply) => {
      let outcome: T | StepUnavailable
      try {
        if (!Array.isArray(reply)) outcome = unavailable((reply as { failed: unknown }).failed)
        else if (reply[0] === 'error') outcome = unavailable(new RedisCommandError(what, String(reply[1])))
        else outcome = outcomeOf(reply)
      } catch (error) {
        // An answer that does not decode fails its step, not the others of its call.
        outcome = unavailable(error)
      }
      done(outcome)
    }
    lane.add({ args: [name, args.length, ...args], rides, answer })
  }

  /** One lane's calls: its KEYS, and where its inbox and outbox groups start in them ('' for none). */
  #sender(keys: readonly string[], inbox: number | '', outbox: number | '') {
    return (steps: readonly (string | number)[]): Promise<Reply> => {
      const call = async () => {
        const answers = await this.kv.connection.run(
          'run the steps',
          'journal',
          async (client) => (await runScript(client, STEPS, keys, [inbox, outbox, ...steps])) as Reply,
        )
        // The batch has landed: before any step is answered, N replicas must have it (waitReplicas,
        // replica-wait.ts), on the node of this slot; the wait has a deadline of its own.
        await this.kv.connection.confirmWrites(keys[0]!, 'run the steps')
        return answers
      }
      const recording = this.kv.recorded(COLLECTIONS)
      return recording ? recording.then(call) : call()
    }
  }
}

/** Runs `build`, which queues a step (and never answers itself); when building its arguments throws, answers `unavailable` at once. */
function tried<T>(done: (outcome: T | StepUnavailable) => void, build: () => void): void {
  try {
    build()
  } catch (error) {
    done(unavailable(error))
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
