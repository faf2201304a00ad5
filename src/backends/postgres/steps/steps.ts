/**
 * `PostgresSteps`: the steps (core/durability/steps/journal-steps.ts) on PostgreSQL. Admit,
 * journal and settle are queued (step-batches.ts) and leave together in one call of the steps
 * function (steps-function.ts), which applies the rules of step-rules.ts in PL/pgSQL over the
 * journal's own rows: every operator verb reads what the steps wrote. The sweeper's take-back is
 * one call of its own (take-back-function.ts).
 *
 * What this side adds to a call is the text the TypeScript rules make: the records an admit or a
 * send journals (whole), the lease of a claim around its token, the error of spent runs around its
 * count. The functions splice them into the records they rewrite and keep every other field as it
 * was written, so a record is what the TypeScript rules would make of it. The rows they insert are
 * counted toward the table's next ANALYZE (planner-statistics.ts), as `PostgresKv`'s writes are:
 * the functions' cached plans are made for the table's size.
 */
import { unfinishedRunsError } from '../../../core/durability/leases/charged-runs.js'
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
} from '../../../core/durability/steps/journal-steps.js'
import { leaseOf, queuedRecord, takenBackOf } from '../../../core/durability/steps/step-rules.js'
import { recordIndex, type InboxRecord, type Json, type OutboxRecord } from '../../../core/backend-internals.js'
import type { PostgresKv } from '../kv.js'
import { checkOp } from '../kv.js'
import { POSTGRES_LIMITS } from '../limits.js'
import { named } from '../prepared.js'
import type { StepBatches } from './step-batches.js'

/** A number no token or run count is: where the functions put theirs in the text a rule made. */
const MARK = 0.5

/** The steps of one scope's journal in PostgreSQL. */
export class PostgresSteps implements JournalSteps {
  /** The chat the next take-back goes on after. */
  #after = ''

  /** `kv`: the root store (its connection and tables); `batches`: the group commit every scope of it shares. */
  constructor(
    private readonly kv: PostgresKv,
    private readonly batches: StepBatches,
    private readonly scope: string,
  ) {}

  admit(record: InboxRecord, claim: StepClaim, done: (outcome: AdmitOutcome) => void): void {
    const queued = queuedRecord(record)
    const chat = JSON.stringify(record.chatId)
    this.#queue<AdmitOutcome>(
      done,
      [...['admit', this.scope, record.id, chat], ...rowOf('inbox', record.id, record), ...rowOf('inbox', record.id, queued)],
      {
        chat: `${this.scope}\n${chat}`,
        answer: (type, found) => {
          if (type === 'duplicate') return { type: 'duplicate', record: JSON.parse(found!) as InboxRecord }
          this.kv.noteInserted(1)
          return type === 'run' ? { type: 'run', record } : { type: 'queued', record: queued }
        },
      },
    )
  }

  journal(
    inbound: { readonly id: string; readonly token: number } | undefined,
    records: readonly OutboxRecord[],
    done: (outcome: JournalOutcome) => void,
  ): void {
    const fence = inbound ? [inbound.id, String(inbound.token)] : [null, null]
    const sends = records.flatMap((record) => [record.key, ...rowOf('outbox', record.key, record)])
    this.#queue<JournalOutcome>(done, ['journal', this.scope, ...fence, String(records.length), ...sends], {
      answer: (type, found) => {
        if (type === 'recorded') return { type: 'recorded', record: JSON.parse(found!) as OutboxRecord }
        if (type === 'fenced') return { type: 'fenced' }
        this.kv.noteInserted(records.length)
        return { type: 'journaled' }
      },
    })
  }

  settle(settle: Settle, claim: StepClaim, done: (outcome: SettleOutcome) => void): void {
    const marks = settle.marks.flatMap((mark) => [mark.key, JSON.stringify(mark.messageId)])
    const inbound = settle.inbound
    const end = inbound ? [inbound.id, String(inbound.token), ...endFields(inbound.end)] : [null, null, null, null, null]
    this.#queue<SettleOutcome>(done, ['settle', this.scope, ...claimFields(claim), String(settle.marks.length), ...marks, ...end], {
      answer: (type, next) =>
        type === 'fenced' ? { type: 'fenced' } : { type: 'settled', next: next === null ? undefined : (JSON.parse(next) as InboxRecord) },
    })
  }

  takeBack(claim: StepClaim, pass: TakeBackPass, done: (taken: readonly TakenBack[] | StepUnavailable) => void): void {
    const [spentBefore, spentAfter] = around(JSON.stringify(unfinishedRunsError(MARK, 'process', claim.now)), String(MARK))
    const call = {
      ...named(
        `SELECT ${this.kv.tables.steps.takeBack}($1::text, $2::text[], $3::int, $4::int, $5::text, $6::int, $7::text, $8::text, $9::text) AS answers`,
      ),
      values: [
        this.scope,
        claimFields(claim),
        pass.maxAttempts,
        pass.limit,
        this.#after,
        POSTGRES_LIMITS.takeBackChatsMax,
        spentBefore,
        spentAfter,
        pass.alone ?? '',
      ],
    }
    this.kv.connection.query<{ answers: string[] }>(call).then(
      ({ rows }) => {
        const answers = rows[0]!.answers
        // An alone pass looks at its message only: the scan goes on where the last pass left it.
        if (pass.alone === undefined) this.#after = answers[0]!
        const taken: TakenBack[] = []
        for (let n = 1; n < answers.length; n += 2) taken.push(takenBackOf(answers[n]!, answers[n + 1]!))
        done(taken)
      },
      (error: unknown) => done(unavailable(error)),
    )
  }

  /** Queues one step; `done` gets its answer read by `answer`, or `unavailable` when its call (or this side) failed. */
  #queue<T>(
    done: (outcome: T) => void,
    fields: readonly (string | null)[],
    how: { chat?: string; answer: (type: string, payload: string | null) => T },
  ): void {
    this.batches.add({
      fields,
      chat: how.chat,
      answer: (type, payload) => {
        let outcome: T
        try {
          outcome = how.answer(type, payload)
        } catch (error) {
          outcome = unavailable(error) as T
        }
        done(outcome)
      },
      fail: (error) => done(unavailable(error) as T),
    })
  }
}

/** A step that failed: nothing it wrote can be vouched for (the contract's retryable answer). */
function unavailable(error: unknown): StepUnavailable {
  return { type: 'unavailable', error }
}

/** A new record as the steps function writes its row: its JSON, state, state time and due ('' for none). */
function rowOf(kind: 'inbox' | 'outbox', key: string, record: InboxRecord | OutboxRecord): string[] {
  const { state, stateTime, due } =
    kind === 'inbox' ? recordIndex('inbox', record as InboxRecord) : recordIndex('outbox', record as OutboxRecord)
  checkOp({ op: 'put', collection: kind, key, expectVersion: 0, value: record as unknown as Json, state, stateTime, due })
  return [JSON.stringify(record), state, String(stateTime), due === null ? '' : String(due)]
}

/** A claim as the functions take it (record-functions.ts): now, the lease's JSON around its token, its expiry, owner, incarnation. */
function claimFields(claim: StepClaim): string[] {
  const [before, after] = around(JSON.stringify(leaseOf(claim, MARK)), `"token":${MARK}`)
  return [JSON.stringify(claim.now), `${before}"token":`, after, JSON.stringify(claim.now + claim.leaseMs), claim.owner, claim.incarnation]
}

/** A run's end as the steps function takes it: its state and two details. */
function endFields(end: RunEnd): string[] {
  if (end.state === 'done') return ['done', end.note === undefined ? '' : JSON.stringify(end.note), '']
  if (end.state === 'failed') return ['failed', JSON.stringify(end.error), JSON.stringify(end.retryAt)]
  return ['dead', JSON.stringify(end.error), '']
}

/** The text before and after the first `needle`. */
function around(text: string, needle: string): [string, string] {
  const at = text.indexOf(needle)
  return [text.slice(0, at), text.slice(at + needle.length)]
}
