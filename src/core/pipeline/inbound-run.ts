/**
 * One held inbound record, run to the end: route it, run its handler, wait for the sends it started,
 * then mark it done. A failure before the handler is retried by the sweeper (inbox.backoff). An effect
 * the journal could not record (a send not journaled, a checkpoint not written) is not the handler's
 * failure: the message is not done, and it runs again here after inbox.backoff, with its run
 * charged, while the chat's later messages keep waiting behind it in the chat queue, so they never
 * overtake it. On that replay the sends already journaled are answered from the outbox.
 */
import type { AsyncLocalStorage } from 'node:async_hooks'
import { backoffMs } from '../durability/backoff.js'
import { errorInfo, type DurabilityEngine } from '../durability/engine.js'
import type { HeldRecord } from '../durability/held-record.js'
import { completeInbound, failInbound } from '../durability/inbox.js'
import type { SentMarks } from '../durability/sent-marks.js'
import { settlingRetry, settlingWrite } from '../durability/settling-write.js'
import { JournalUnavailableError } from '../errors.js'
import { replayedEvent } from '../media.js'
import type { IProvider, InboundEvent } from '../provider.js'
import type { Dispatcher, Route } from './dispatcher.js'
import { SendOrigin } from './send-origin.js'

export interface InboundRunDeps {
  engine: DurabilityEngine
  dispatcher: Dispatcher
  provider: IProvider
  /** The message being handled, for sends made through bot.send inside a handler. */
  origin: AsyncLocalStorage<SendOrigin>
}

/** How one run of a message ended. */
type RunEnd = 'settled' | { unrecorded: unknown }

/** Runs `held` (the live event when it was just admitted) until it is settled. */
export function runInbound(deps: InboundRunDeps, held: HeldRecord<'inbox'>, live: InboundEvent | undefined): Promise<void> {
  // The first run in a then(): the loop of replays (an async frame) only when it did not settle.
  return runOnce(deps, held, live, !live).then((end) => (end === 'settled' ? undefined : runAgain(deps, held, live, end)))
}

async function runAgain(
  deps: InboundRunDeps,
  held: HeldRecord<'inbox'>,
  live: InboundEvent | undefined,
  first: { unrecorded: unknown },
): Promise<void> {
  for (let end: RunEnd = first; end !== 'settled'; end = await runOnce(deps, held, live, true)) {
    if (!(await chargeAnotherRun(deps.engine, held, end.unrecorded))) return
  }
}

async function runOnce(deps: InboundRunDeps, held: HeldRecord<'inbox'>, live: InboundEvent | undefined, replay: boolean): Promise<RunEnd> {
  const { engine, dispatcher } = deps
  let event: InboundEvent
  let route
  try {
    event = live ?? replayedEvent(held.record.event, deps.provider)
    route = live && !replay ? await dispatcher.routeArrival(event, held.id) : await dispatcher.route(event, held.id)
  } catch (error) {
    engine.events.error(error)
    await failInbound(engine, held, error)
    return 'settled'
  }
  if (route.type === 'fed-before') {
    await complete(engine, held, route.note)
    return 'settled'
  }
  const origin = new SendOrigin(engine, held.id, replay)
  const end = await runHandled(deps, held, event, route, origin)
  // Nothing of the message is left behind: marks that did not ride in its completion are written now.
  if (origin.marks.busy) await origin.marks.drain()
  return end
}

/** Runs the handler of a routed message, waits for its sends, and completes it (their sent marks along). */
async function runHandled(
  deps: InboundRunDeps,
  held: HeldRecord<'inbox'>,
  event: InboundEvent,
  route: Route,
  origin: SendOrigin,
): Promise<RunEnd> {
  const { engine, dispatcher } = deps
  const outcome = await deps.origin.run(origin, () => dispatcher.run(route, event, held.id, origin))
  // Done only once its effects settled: every send the handler started is journaled or finished.
  // Each one is caught where it is pushed, so a lone send is awaited as it is (no allSettled).
  for (let settled = 0; settled < origin.pending.length;) {
    const batch = origin.pending.length - settled === 1 ? origin.pending[settled] : Promise.allSettled(origin.pending.slice(settled))
    settled = origin.pending.length
    await batch
  }
  const unrecorded = origin.journalFailure ?? outcome.unrecorded
  if (unrecorded === undefined) return complete(engine, held, undefined, origin.marks)
  const error = new JournalUnavailableError(
    `the effects of inbound "${held.id}" could not all be recorded (${describe(unrecorded)}); it will be replayed`,
    unrecorded,
  )
  engine.events.error(error)
  if (held.record.attempts < engine.config.inbox.maxAttempts) return { unrecorded: error }
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
      held.update('inbox.claim', (record) => ({
        ...record,
        attempts: record.attempts + 1,
        fencingToken: record.fencingToken + 1,
        lease: engine.lease('inbox', record.fencingToken + 1),
        lastError: errorInfo(cause, engine.now()),
        updatedAt: engine.now(),
      })),
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
