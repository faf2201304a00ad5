/**
 * The memory store with scripted faults in its steps, for the steps engine's tests: a `takeBack` that
 * fails (the store away, or a record it cannot decode), and admissions that land while their answer
 * is lost.
 */
import { MemoryDurability } from '../../../src/core/durability/memory/memory-durability.js'
import type { JournalSteps } from '../../../src/core/durability/steps/journal-steps.js'

export class ScriptedSteps extends MemoryDurability {
  /** While set, every `takeBack` fails with it. */
  takeBackFailure: Error | undefined
  /** How many of the next admissions land but answer as if the store were away. */
  lostAdmits = 0

  override steps(scopeId: string): JournalSteps {
    const inner = super.steps(scopeId)
    return {
      admit: (record, claim, done) =>
        inner.admit(record, claim, (outcome) => {
          if (this.lostAdmits === 0) return done(outcome)
          this.lostAdmits--
          done({ type: 'unavailable', error: new Error('the answer was lost (scripted)') })
        }),
      journal: (inbound, records, done) => inner.journal(inbound, records, done),
      settle: (settle, claim, done) => inner.settle(settle, claim, done),
      takeBack: (claim, pass, done) =>
        this.takeBackFailure ? done({ type: 'unavailable', error: this.takeBackFailure }) : inner.takeBack(claim, pass, done),
    }
  }
}
