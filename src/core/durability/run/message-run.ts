/**
 * One held inbound record, run to the end: route it, run its handler, wait for the sends it started,
 * then mark it done. A failure before the handler (the store down), and an effect the journal could
 * not record (a send not journaled, a checkpoint not written), is not the handler's failure: the
 * message is not done, and it runs again here after inbox.backoff, with its run charged, while the
 * chat's later messages keep waiting behind it in the chat's lane, so they never overtake it. On that replay the sends already journaled are answered from the outbox.
 *
 * The completion (the `inbox.complete` write, with the sent marks riding in it) is off the chat's
 * path: once a message's handler returned and its sends are journaled, the chat's next message may
 * run while the completion is in flight. Completions of a chat are written one after another in the
 * order their messages ran (the chat's completion chain), so the messages recorded done are always
 * the chat's earliest: a crash leaves the unfinished ones to be replayed in their order, their sends
 * answered from the outbox and a flow's step taken as fed before. A completion the journal keeps
 * refusing makes its message run again in the chat's lane (after what is running there), and the
 * chat's later completions wait until it settled.
 */
import { backoffMs } from '../backoff.js'
import { runsSpent } from '../leases/charged-runs.js'
import type { ChatQueue } from '../turns/chat-queue.js'
import { errorInfo, type DurabilityEngine } from '../engine.js'
import type { HeldRecord } from '../leases/held-record.js'
import { claimedRecord, completeInbound, deadLetterInbound } from '../admission/inbox.js'
import type { SentMarks } from '../outbox/sent-marks.js'
import type { InboxRecord } from '../journal/records.js'
import { settlingRetry, settlingWrite } from './settling-write.js'
import { JournalUnavailableError } from '../../errors/errors.js'
import type { InboundEvent } from '../../provider/provider.js'
import type { MessageRunner } from '../port.js'
import { SendOrigin } from './send-origin.js'

export interface MessageRunDeps {
  engine: DurabilityEngine
  runner: MessageRunner
  /** The chats' lanes: one handler of a chat at a time, in the order its messages came. */
  lanes: ChatQueue
  /** The chats' completion chains: a chat's completions written in the order its messages ran. */
  completions: ChatQueue
}

/** How one run of a message ended. */
type RunEnd = 'settled' | { unrecorded: unknown }

/**
 * A run whose effects settled: what is left is its completion (with the sent marks that wait for
 * it), which the chat's next message does not wait for.
 */
type RunOnceEnd = RunEnd | Completion

interface Completion {
  complete: () => Promise<RunEnd>
  marks?: SentMarks
}

/** What is left of a message once its chat's lane moved on: its completion, in flight. */
export interface Completing {
  /** Resolves once the message is settled (done, dead, failed, or left to its lease). */
  readonly settled: Promise<void>
}

/**
 * Runs `held` (the live event when it was just admitted) in its chat's lane (the caller's task) until
 * its effects settled; its completion then goes on the chat's completion chain.
 */
export function runMessage(
  deps: MessageRunDeps,
  held: HeldRecord<'inbox'>,
  live: InboundEvent | undefined,
): Promise<Completing | undefined> {
  // The first run in a then(): the loop of replays (an async frame) only when it did not settle.
  return runOnce(deps, held, live, !live).then((end) => {
    if (end === 'settled') return undefined
    if ('complete' in end) {
      const chatId = held.record.chatId
      const complete = deps.completions.busy(chatId) ? keepingMarks(end) : end.complete
      return { settled: deps.completions.run(chatId, () => completeInChain(deps, held, live, complete)) }
    }
    return runAgain(deps, held, live, end).then(() => undefined)
  })
}

/**
 * A completion that waits for the chat's previous one keeps the marks waiting now: they still ride
 * in it, where the end of this turn would write each alone (a round trip more). Their records stay
 * held by the lease keeper meanwhile, and a crash before the completion is the ambiguous window of
 * a send whose mark is not written, as at any time between a provider call and its mark.
 */
function keepingMarks({ complete, marks }: Completion): () => Promise<RunEnd> {
  if (!marks) return complete
  const riding = marks.take()
  return () => {
    marks.restore(riding)
    return complete()
  }
}

/** Writes a completion in its place in the chain; refused for good, the message runs again first. */
function completeInChain(
  deps: MessageRunDeps,
  held: HeldRecord<'inbox'>,
  live: InboundEvent | undefined,
  complete: () => Promise<RunEnd>,
): Promise<void> {
  return complete().then((end) => {
    // Its next run is in the lane, and this link of the chain holds the chat's later completions until it settled.
    if (end !== 'settled') return deps.lanes.run(held.record.chatId, () => runAgain(deps, held, live, end))
  })
}

/** Runs a message again until it settled, its completion awaited in the lane: the rare path after an effect not recorded. */
async function runAgain(
  deps: MessageRunDeps,
  held: HeldRecord<'inbox'>,
  live: InboundEvent | undefined,
  first: { unrecorded: unknown },
): Promise<void> {
  for (let end: RunEnd = first; end !== 'settled';) {
    if (!(await chargeAnotherRun(deps.engine, held, end.unrecorded))) return
    const next = await runOnce(deps, held, live, true)
    end = next !== 'settled' && 'complete' in next ? await next.complete() : next
  }
}

async function runOnce(
  deps: MessageRunDeps,
  held: HeldRecord<'inbox'>,
  live: InboundEvent | undefined,
  replay: boolean,
): Promise<RunOnceEnd> {
  const { engine, runner } = deps
  const origin = new SendOrigin(engine, held.id, replay)
  let handled
  try {
    handled = await runner.handle({ id: held.id, journaled: held.record.event, live, replay }, origin)
  } catch (error) {
    // A failure before the handler (routing, a checkpoint read, a media reference) keeps the chat's
    // lane, as an effect not recorded does: the message runs again here after inbox.backoff, and the
    // chat's later messages wait behind it until it ran or was dead-lettered.
    engine.events.error(error)
    if (!runsSpent(held.record.attempts, engine.config.inbox.maxAttempts)) return { unrecorded: error }
    await deadLetterInbound(engine, held, error)
    return 'settled'
  }
  if (handled.type === 'fed-before') {
    const note = handled.note
    return { complete: () => complete(engine, held, note) }
  }
  return settleHandled(engine, held, origin, handled.unrecorded)
}

/** Waits for the sends of a handled message; what is left is its completion (their sent marks along). */
async function settleHandled(
  engine: DurabilityEngine,
  held: HeldRecord<'inbox'>,
  origin: SendOrigin,
  handlerUnrecorded: unknown,
): Promise<RunOnceEnd> {
  // Done only once its effects settled: every send the handler started is journaled or finished.
  // Each one is caught where it is pushed, so a lone send is awaited as it is (no allSettled).
  for (let settled = 0; settled < origin.pending.length;) {
    const batch = origin.pending.length - settled === 1 ? origin.pending[settled] : Promise.allSettled(origin.pending.slice(settled))
    settled = origin.pending.length
    await batch
  }
  const unrecorded = origin.journalFailure ?? handlerUnrecorded
  if (unrecorded === undefined) return { complete: () => completeWithMarks(engine, held, origin.marks), marks: origin.marks }
  const error = new JournalUnavailableError(
    `the effects of inbound "${held.id}" could not all be recorded (${describe(unrecorded)}); it will be replayed`,
    unrecorded,
  )
  engine.events.error(error)
  if (origin.marks.busy) await origin.marks.drain()
  if (!runsSpent(held.record.attempts, engine.config.inbox.maxAttempts)) return { unrecorded: error }
  // Its runs are used up: dead-lettered, like a message failing before its handlers.
  await settlingWrite(settlingRetry(engine.config, 'inbox'), () => deadLetterInbound(engine, held, error))
  return 'settled'
}

/** The completion with the sent marks that wait for it; nothing of the message is left behind once it settled. */
function completeWithMarks(engine: DurabilityEngine, held: HeldRecord<'inbox'>, marks: SentMarks): Promise<RunEnd> {
  const done = complete(engine, held, undefined, marks)
  // Marks that did not ride in the completion (written alone at the end of their turn) are waited for too.
  return marks.busy ? done.then((end) => marks.drain().then(() => end)) : done
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
  let claimed: InboxRecord | undefined
  try {
    const ok = await settlingWrite(settlingRetry(engine.config, 'inbox'), () =>
      held.update('inbox.claim', (record) => (claimed = claimedRecord(engine, record, errorInfo(cause, engine.now())))),
    )
    // Refused: an earlier try that went unanswered may be the claim the journal holds (taken() checks the lease).
    if (!ok && claimed) engine.unrun.unanswered(claimed)
    if (!ok) engine.metrics.increment('staleLeases')
    else engine.metrics.increment('inboundReplayed')
    return ok
  } catch (error) {
    if (claimed) engine.unrun.unanswered(claimed)
    engine.events.error(error)
    return false
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
