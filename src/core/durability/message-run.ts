/**
 * One held inbound record, run to the end: route it, run its handler, wait for the sends it started,
 * then mark it done. A failure before the handler is retried by the sweeper (inbox.backoff). An effect
 * the journal could not record (a send not journaled, a checkpoint not written) is not the handler's
 * failure: the message is not done, and it runs again here after inbox.backoff, with its run
 * charged, while the chat's later messages keep waiting behind it in the chat queue, so they never
 * overtake it. On that replay the sends already journaled are answered from the outbox.
 */
import { backoffMs } from './backoff.js'
import { runsSpent } from './charged-runs.js'
import { errorInfo, type DurabilityEngine } from './engine.js'
import type { HeldRecord } from './held-record.js'
import { claimedRecord, completeInbound, failInbound } from './inbox.js'
import type { SentMarks } from './sent-marks.js'
import { settlingRetry, settlingWrite } from './settling-write.js'
import { JournalUnavailableError } from '../errors.js'
import type { InboundEvent } from '../provider.js'
import type { MessageRunner } from './port.js'
import { SendOrigin } from './send-origin.js'

export interface MessageRunDeps {
  engine: DurabilityEngine
  runner: MessageRunner
}

/** How one run of a message ended. */
type RunEnd = 'settled' | { unrecorded: unknown }

/** Runs `held` (the live event when it was just admitted) until it is settled. */
export function runMessage(deps: MessageRunDeps, held: HeldRecord<'inbox'>, live: InboundEvent | undefined): Promise<void> {
  // The first run in a then(): the loop of replays (an async frame) only when it did not settle.
  return runOnce(deps, held, live, !live).then((end) => (end === 'settled' ? undefined : runAgain(deps, held, live, end)))
}

async function runAgain(
  deps: MessageRunDeps,
  held: HeldRecord<'inbox'>,
  live: InboundEvent | undefined,
  first: { unrecorded: unknown },
): Promise<void> {
  for (let end: RunEnd = first; end !== 'settled'; end = await runOnce(deps, held, live, true)) {
    if (!(await chargeAnotherRun(deps.engine, held, end.unrecorded))) return
  }
}

async function runOnce(deps: MessageRunDeps, held: HeldRecord<'inbox'>, live: InboundEvent | undefined, replay: boolean): Promise<RunEnd> {
  const { engine, runner } = deps
  const origin = new SendOrigin(engine, held.id, replay)
  let handled
  try {
    handled = await runner.handle({ id: held.id, journaled: held.record.event, live, replay }, origin)
  } catch (error) {
    engine.events.error(error)
    await failInbound(engine, held, error)
    return 'settled'
  }
  if (handled.type === 'fed-before') return complete(engine, held, handled.note)
  const end = await settleHandled(engine, held, origin, handled.unrecorded)
  // Nothing of the message is left behind: marks that did not ride in its completion are written now.
  if (origin.marks.busy) await origin.marks.drain()
  return end
}

/** Waits for the sends of a handled message, then completes it (their sent marks along). */
async function settleHandled(
  engine: DurabilityEngine,
  held: HeldRecord<'inbox'>,
  origin: SendOrigin,
  handlerUnrecorded: unknown,
): Promise<RunEnd> {
  // Done only once its effects settled: every send the handler started is journaled or finished.
  // Each one is caught where it is pushed, so a lone send is awaited as it is (no allSettled).
  for (let settled = 0; settled < origin.pending.length;) {
    const batch = origin.pending.length - settled === 1 ? origin.pending[settled] : Promise.allSettled(origin.pending.slice(settled))
    settled = origin.pending.length
    await batch
  }
  const unrecorded = origin.journalFailure ?? handlerUnrecorded
  if (unrecorded === undefined) return complete(engine, held, undefined, origin.marks)
  const error = new JournalUnavailableError(
    `the effects of inbound "${held.id}" could not all be recorded (${describe(unrecorded)}); it will be replayed`,
    unrecorded,
  )
  engine.events.error(error)
  if (!runsSpent(held.record.attempts, engine.config.inbox.maxAttempts)) return { unrecorded: error }
  // Its runs are used up: dead-lettered, like a message failing before its handlers.
  await settlingWrite(settlingRetry(engine.config, 'inbox'), () => failInbound(engine, held, error))
  return 'settled'
}

/** Marks the message done; a journal that keeps refusing that makes it run again instead. */
function complete(engine: DurabilityEngine, held: HeldRecord<'inbox'>, note?: string, marks?: SentMarks): Promise<RunEnd> {
  return settlingWrite(settlingRetry(engine.config, 'inbox'), () => completeInbound(engine, held, note, marks)).then(
    () => 'settled' as const,
    (error: unknown) => {
      engine.events.error(error)
      return { unrecorded: error }
    },
  )
}

/**
 * Waits inbox.backoff, then charges one more run of the record, which stays processing under this
 * process's lease meanwhile (the heartbeat keeps it). False when the lease was lost, or when the
 * journal stayed away for half the lease: the record is then taken again once its lease is over.
 */
async function chargeAnotherRun(engine: DurabilityEngine, held: HeldRecord<'inbox'>, cause: unknown): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, backoffMs(engine.config.inbox.backoff, held.record.attempts)))
  try {
    const ok = await settlingWrite(settlingRetry(engine.config, 'inbox'), () =>
      held.update('inbox.claim', (record) => claimedRecord(engine, record, errorInfo(cause, engine.now()))),
    )
    if (!ok) engine.metrics.increment('staleLeases')
    else engine.metrics.increment('inboundReplayed')
    return ok
  } catch (error) {
    engine.events.error(error)
    return false
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
