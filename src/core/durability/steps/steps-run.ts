/**
 * A message's run on the steps engine: its handler, then one `settle` that writes its sends' marks
 * and its end together and hands its chat's next message over, which runs next. Nothing waits in a
 * lane of this process: a chat's order is the journal's (the steps queue a message behind its
 * chat's unfinished one), so a message runs only once its chat's earlier ones settled.
 *
 * A run that fails (its handler could not be routed, or an effect could not be recorded) is written
 * `failed` with its retry time and keeps its place at the head of its chat; the sweep takes it back
 * when it is due (steps-sweep.ts). Its runs spent, it is dead-lettered and its chat goes on.
 */
import { backoffMs } from '../backoff.js'
import { errorInfo, type DurabilityEngine } from '../engine.js'
import { journalFailure } from '../journal/guarded-journal.js'
import type { InboxRecord } from '../journal/records.js'
import { runsSpent } from '../leases/charged-runs.js'
import { LIMITS } from '../limits.js'
import { frozen } from '../memory/frozen.js'
import type { MessageRunner } from '../port.js'
import { SendOrigin } from '../run/send-origin.js'
import { JournalUnavailableError } from '../../errors/errors.js'
import type { InboundEvent } from '../../provider/provider.js'
import type { JournalSteps, RunEnd, SentMark, SettleOutcome, StepClaim } from './journal-steps.js'
import type { LostClaims } from './lost-claims.js'

/** The origin of a message run by the steps engine: its run's token, and the marks that ride in its settle. */
export class StepsOrigin extends SendOrigin {
  /** Sends the provider accepted, written `sent` by the message's settle. */
  readonly sent: SentMark[] = []

  constructor(
    engine: DurabilityEngine,
    readonly record: InboxRecord,
    replay: boolean,
  ) {
    super(engine, record.id, replay)
  }

  get token(): number {
    return this.record.fencingToken
  }
}

export interface StepsRunDeps {
  engine: DurabilityEngine
  steps: JournalSteps
  runner: MessageRunner
  /** A claim of this process, now. */
  claim(): StepClaim
  /** Runs the chat's next message, handed over by a settle. */
  runNext(record: InboxRecord): void
  /** Runs a sweep at `at` (a failed run's retry time). */
  wakeAt(at: number): void
  /** Where a settle whose answer was lost says it may have handed a message over. */
  lostClaims: LostClaims
}

/** Runs a message this process claimed; resolves once its settle is written (or left to its lease). */
export function runClaimed(deps: StepsRunDeps, record: InboxRecord, live: InboundEvent | undefined, replay: boolean): Promise<void> {
  const { engine, runner } = deps
  const origin = new StepsOrigin(engine, record, replay)
  // A replay's event is rebuilt from the journal's own JSON, which the memory journal hands out
  // unfrozen (memory-steps.ts): frozen, a handler that changes its message fails instead of changing the journal.
  return runner
    .handle({ id: record.id, journaled: live ? record.event : frozen(record.event), live, replay }, origin)
    .then(
      (handled) => (origin.pending.length > 0 ? settledSends(origin).then(() => handled) : handled),
      (error: unknown) => {
        // Routing failed (the store could not be read): not the handler's failure, it runs again.
        engine.events.error(error)
        return { type: 'ran' as const, unrecorded: error }
      },
    )
    .then((handled) => {
      if (handled.type === 'fed-before') return settle(deps, origin, { state: 'done', note: handled.note })
      const unrecorded = origin.journalFailure ?? handled.unrecorded
      return settle(deps, origin, unrecorded === undefined ? { state: 'done' } : failedEnd(engine, record, unrecorded))
    })
}

/** Waits for every send the handler started, those started meanwhile included; each is pushed caught. */
async function settledSends(origin: SendOrigin): Promise<void> {
  for (let settled = 0; settled < origin.pending.length;) {
    const batch = origin.pending.slice(settled)
    settled = origin.pending.length
    await Promise.all(batch)
  }
  // Marks of sends made on the generic path (a replay's, an explicit key's) are written alone.
  if (origin.marks.busy) await origin.marks.drain()
}

/** How a run whose effects were not all recorded ends: failed, to run again after inbox.backoff, or dead once its runs are spent. */
function failedEnd(engine: DurabilityEngine, record: InboxRecord, cause: unknown): RunEnd {
  const error = new JournalUnavailableError(
    `the effects of inbound "${record.id}" could not all be recorded (${cause instanceof Error ? cause.message : String(cause)}); it will be replayed`,
    cause,
  )
  engine.events.error(error)
  const now = engine.now()
  const info = errorInfo(error, now)
  if (runsSpent(record.attempts, engine.config.inbox.maxAttempts)) return { state: 'dead', error: info }
  return { state: 'failed', error: info, retryAt: now + backoffMs(engine.config.inbox.backoff, record.attempts) }
}

/** Journals the run's end with its marks; a store that keeps refusing leaves the message to its lease. */
function settle(deps: StepsRunDeps, origin: StepsOrigin, end: RunEnd): Promise<void> {
  const { engine, steps } = deps
  const record = origin.record
  const inbound = { id: record.id, token: origin.token, end }
  return new Promise<void>((resolve) => {
    let tries = 0
    const answered = (outcome: SettleOutcome): void => {
      if (outcome.type === 'unavailable') {
        engine.events.error(journalFailure(engine.scopeId, outcome.error, `settle inbound "${record.id}"`))
        // It may have landed, its chat's next message handed over to nobody.
        deps.lostClaims.suspect()
        // Its lease passes it on if the store stays away: the sweep takes it back in its chat's order.
        if (++tries >= LIMITS.settleTriesMax) return resolve()
        setTimeout(
          () => steps.settle({ inbound, marks: origin.sent }, deps.claim(), answered),
          backoffMs(engine.config.inbox.backoff, tries),
        )
        return
      }
      if (outcome.type === 'fenced') engine.metrics.increment('staleLeases')
      else settled(deps, record, end, outcome.next)
      resolve()
    }
    steps.settle({ inbound, marks: origin.sent }, deps.claim(), answered)
  })
}

function settled(deps: StepsRunDeps, record: InboxRecord, end: RunEnd, next: InboxRecord | undefined): void {
  const { engine } = deps
  if (end.state === 'dead') {
    engine.metrics.increment('inboundDead')
    engine.events.dead({ kind: 'inbox', id: record.id, error: end.error })
  } else if (end.state === 'failed') deps.wakeAt(end.retryAt)
  if (next) deps.runNext(next)
}
