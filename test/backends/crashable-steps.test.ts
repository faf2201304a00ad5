/**
 * `crashable(backend)` over a backend that speaks the steps: it speaks them too (so a wrapped backend
 * runs the engine it would run unwrapped), and each step is a crash point. Before it, the store
 * never sees the step; after it, the step landed and its answer is lost; from the crash on, no step
 * reaches the store or answers. A backend with no steps gets a wrapper with none.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { AdmitOutcome, JournalSteps, StepClaim } from '../../src/core/durability/steps/journal-steps.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { crashable } from '../../src/testing/index.js'
import { aroundJournalWrites } from '../../src/testing/wrap-writes.js'

const SCOPE = 'crashable-steps'
const claim: StepClaim = { owner: 'i1', incarnation: 'run-1', leaseMs: 300, now: 2_000 }

/** Admits a message through `steps`; resolves to its answer, or 'no answer' when none came. */
function admit(steps: JournalSteps, id: string): AdmitOutcome | 'no answer' {
  let answer: AdmitOutcome | 'no answer' = 'no answer'
  // Memory answers a step before it returns.
  steps.admit(inboxRecord(id, { chatId: id }), claim, (outcome) => (answer = outcome))
  return answer
}

async function journaled(backend: MemoryDurability, id: string): Promise<boolean> {
  return (await backend.journal(SCOPE).read('inbox', [id])).some((found) => found?.record.id === id)
}

describe('crashable(): the steps are crash points', () => {
  it('speaks the steps only when the backend it wraps does', () => {
    expect(typeof crashable(new MemoryDurability()).steps).toBe('function')
    expect(crashable(aroundJournalWrites(new MemoryDurability(), (_name, _writes, write) => write())).steps).toBeUndefined()
  })

  it('before steps.admit: the store never sees it, nothing answers, the crash is where it was aimed', async () => {
    const inner = new MemoryDurability()
    const wrapped = crashable(inner).crashBefore('steps.admit', { nth: 2 })
    const steps = wrapped.steps!(SCOPE)
    expect(admit(steps, 'm1')).toMatchObject({ type: 'run' })
    expect(admit(steps, 'm2')).toBe('no answer')
    expect(wrapped.crashSite).toEqual({ point: 'steps.admit', when: 'before', occurrence: 2 })
    expect(await journaled(inner, 'm2')).toBe(false)
    // From the crash on, no step reaches the store.
    expect(admit(steps, 'm3')).toBe('no answer')
    expect(await journaled(inner, 'm3')).toBe(false)
    expect(wrapped.reached.get('steps.admit')).toBe(2)
  })

  it('after steps.admit: the step landed, its answer is lost', async () => {
    const inner = new MemoryDurability()
    const wrapped = crashable(inner).crashAfter('steps.admit')
    expect(admit(wrapped.steps!(SCOPE), 'm1')).toBe('no answer')
    expect(wrapped.crashSite).toEqual({ point: 'steps.admit', when: 'after', occurrence: 1 })
    expect(await journaled(inner, 'm1')).toBe(true)
    await wrapped.quiet()
  })
})
