/**
 * Group commit of the steps: every step queued while a call is out leaves in the next one, one
 * `SELECT {prefix}durable_steps($1::text[])` (steps-function.ts): one round trip, one transaction,
 * one WAL flush for all of them. A step answers through its callback, with no promise of its own.
 *
 * - A step goes out in the same tick when fewer than `stepBatchesInFlightMax` calls are out, so a
 *   lone message waits for nothing; otherwise it waits for the next call to come back. The steps
 *   queued are shared out over the calls free, at least `stepsPerCallMin` a call.
 * - Admissions to one chat keep this process's order: an admission whose chat is in a call still
 *   out waits for a later call, and so does every later one to that chat (two calls in flight on
 *   two connections may commit in either order).
 * - A call that fails answers each of its steps with the error: the transaction rolled back.
 */
import { POSTGRES_LIMITS } from '../limits.js'

/** A step as the steps function takes it, and who waits for its answer. */
export interface QueuedStep {
  /** Its fields, its kind first (steps-function.ts). */
  readonly fields: readonly (string | null)[]
  /** For an admission: its scope and chat, kept in order among the calls in flight. */
  readonly chat?: string
  answer(type: string, payload: string | null): void
  fail(error: unknown): void
}

/** Sends one call's fields; resolves to its answers, 2 per step. */
export type SendSteps = (fields: (string | null)[]) => Promise<(string | null)[]>

export class StepBatches {
  readonly #queue: QueuedStep[] = []
  /** The chats of the admissions in calls still out. */
  readonly #busy = new Set<string>()
  #inFlight = 0
  #scheduled = false

  constructor(private readonly send: SendSteps) {}

  /** Queues a step for the next call. */
  add(step: QueuedStep): void {
    this.#queue.push(step)
    // Steps queued in the same tick leave together.
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => {
      this.#scheduled = false
      this.#pump()
    })
  }

  #pump(): void {
    // The queue is shared out over the free calls: their functions run on the server's cores at
    // once, and their commits share WAL flushes, where one call would run every step on one core.
    const free = POSTGRES_LIMITS.stepBatchesInFlightMax - this.#inFlight
    const share = Math.max(POSTGRES_LIMITS.stepsPerCallMin, Math.ceil(this.#queue.length / Math.max(free, 1)))
    while (this.#inFlight < POSTGRES_LIMITS.stepBatchesInFlightMax && this.#queue.length > 0) {
      const batch = this.#take(Math.min(share, POSTGRES_LIMITS.stepBatchMax))
      if (batch.length === 0) return
      this.#run(batch)
    }
  }

  /** The queued steps that may share the next call, in queue order. */
  #take(most: number): QueuedStep[] {
    const batch: QueuedStep[] = []
    const blocked = new Set<string>()
    for (let index = 0; index < this.#queue.length && batch.length < most; index++) {
      const step = this.#queue[index]!
      if (step.chat !== undefined) {
        if (this.#busy.has(step.chat) || blocked.has(step.chat)) {
          blocked.add(step.chat)
          continue
        }
      }
      batch.push(step)
      this.#queue.splice(index--, 1)
    }
    for (const step of batch) if (step.chat !== undefined) this.#busy.add(step.chat)
    return batch
  }

  #run(batch: QueuedStep[]): void {
    this.#inFlight++
    const settle = () => {
      this.#inFlight--
      for (const step of batch) if (step.chat !== undefined) this.#busy.delete(step.chat)
      this.#pump()
    }
    this.send(batch.flatMap((step) => step.fields)).then(
      (answers) => {
        settle()
        batch.forEach((step, n) => step.answer(answers[2 * n]!, answers[2 * n + 1] ?? null))
      },
      (error: unknown) => {
        settle()
        for (const step of batch) step.fail(error)
      },
    )
  }
}
