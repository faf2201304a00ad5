/**
 * One lane of the steps' group commit (steps.ts): one call of the STEPS script in flight, carrying
 * every step queued meanwhile. A lane is what one script call may touch: a scope on one server, one
 * hash slot in a Cluster. A step added to an idle lane goes at once, so a lone step waits for
 * nothing; steps added while a call is in flight go together in the next one, at most
 * `REDIS_LIMITS.stepBatchMax` a call. When a call lands with nothing queued, the lane rests until
 * the event loop has run what its answers set going (setImmediate), so the steps they add go in
 * one call. A step that rides (a settle: off the critical path) waits up to
 * `REDIS_LIMITS.stepRideMs` for a step that does not, and goes in its call. The script applies the
 * steps in the order they were added and answers each on its own; a call that fails answers every
 * step in it with the error.
 */
import { REDIS_LIMITS } from './limits.js'

/** One step in a lane: the script's arguments for it (its name, their count, them) and where its answer goes. */
export interface QueuedStep {
  readonly args: readonly (string | number)[]
  /** Off the critical path: it may wait for another step to ride with (`REDIS_LIMITS.stepRideMs`). */
  readonly rides: boolean
  /** The step's answer from the script, or why its call failed. */
  answer(reply: readonly unknown[] | { readonly failed: unknown }): void
}

/** Sends one call carrying the steps' arguments, one after another; resolves to their answers, in order. */
export type SendSteps = (args: readonly (string | number)[]) => Promise<readonly unknown[]>

export class StepBatch {
  readonly #send: SendSteps
  #queue: QueuedStep[] = []
  #inFlight = false
  /** A call just landed: steps queue until the turn its answers started is over. */
  #resting = false
  /** Set while the queue holds only steps that ride, waiting for one that does not. */
  #ride: NodeJS.Timeout | undefined

  constructor(send: SendSteps) {
    this.#send = send
  }

  add(step: QueuedStep): void {
    this.#queue.push(step)
    if (!this.#inFlight && !this.#resting) this.#go()
  }

  /** Sends what is queued, unless it all rides: then it waits (at most stepRideMs) for a step that does not. */
  #go(): void {
    if (this.#queue.length === 0) return
    if (this.#queue.some((step) => !step.rides)) return this.#flush()
    this.#ride ??= setTimeout(() => this.#flush(), REDIS_LIMITS.stepRideMs)
  }

  #flush(): void {
    clearTimeout(this.#ride)
    this.#ride = undefined
    if (this.#inFlight || this.#queue.length === 0) return
    const batch = this.#queue.splice(0, REDIS_LIMITS.stepBatchMax)
    this.#inFlight = true
    this.#send(batch.flatMap((step) => step.args))
      .then(
        (answers) => answerEach(batch, (n) => answers[n] as readonly unknown[]),
        (error: unknown) => answerEach(batch, () => ({ failed: error })),
      )
      .finally(() => {
        this.#inFlight = false
        // Steps that waited through that call go at once; with none, wait for the ones it set going.
        if (this.#queue.length > 0) return this.#flush()
        this.#resting = true
        setImmediate(() => {
          this.#resting = false
          this.#go()
        })
      })
      .catch(() => {})
  }
}

/** Answers every step; a step's callback that throws is thrown again on its own, after the others are answered. */
function answerEach(batch: readonly QueuedStep[], replyOf: (n: number) => readonly unknown[] | { readonly failed: unknown }): void {
  batch.forEach((step, n) => {
    try {
      step.answer(replyOf(n))
    } catch (error) {
      process.nextTick(() => {
        throw error
      })
    }
  })
}
