/**
 * The memory store with scripted faults in its steps, for the steps engine's tests: a `takeBack` that
 * fails (the store away, or a record it cannot decode), and admissions, settles and take-backs that
 * land while their answer is lost.
 */
import { MemoryDurability } from '../../../src/core/durability/memory/memory-durability.js'
import type { JournalSteps, StepUnavailable } from '../../../src/core/durability/steps/journal-steps.js'

export class ScriptedSteps extends MemoryDurability {
  /** While set, every `takeBack` fails with it. */
  takeBackFailure: Error | undefined
  /** How many of the next admissions land but answer as if the store were away. */
  lostAdmits = 0
  /** How many of the next settles land but answer as if the store were away. */
  lostSettles = 0
  /** How many of the next take-backs that take something land but answer as if the store were away. */
  lostTakeBacks = 0

  override steps(scopeId: string): JournalSteps {
    const inner = super.steps(scopeId)
    return {
      admit: (record, claim, done) => inner.admit(record, claim, (outcome) => done(this.#lost('lostAdmits', outcome))),
      journal: (inbound, records, done) => inner.journal(inbound, records, done),
      settle: (settle, claim, done) => inner.settle(settle, claim, (outcome) => done(this.#lost('lostSettles', outcome))),
      takeBack: (claim, pass, done) =>
        this.takeBackFailure
          ? done({ type: 'unavailable', error: this.takeBackFailure })
          : inner.takeBack(claim, pass, (taken) =>
              done('type' in taken || taken.length === 0 ? taken : this.#lost('lostTakeBacks', taken)),
            ),
    }
  }

  /** The outcome, or, while `counter` counts lost answers, the store's silence in its place. */
  #lost<T>(counter: 'lostAdmits' | 'lostSettles' | 'lostTakeBacks', outcome: T): T | StepUnavailable {
    if (this[counter] === 0) return outcome
    this[counter]--
    return { type: 'unavailable', error: new Error('the answer was lost (scripted)') }
  }
}
