/** The steps' conformance cases on the memory backend: each case on a fresh scope of one state. */
import { MemoryDurability } from '../../../src/core/durability/memory/memory-durability.js'
import { describeStepsConformance } from '../../../test-utils/steps-conformance.js'

const backend = new MemoryDurability()
let scopes = 0

describeStepsConformance('memory', () => {
  const scope = `steps-${++scopes}`
  return { steps: backend.steps(scope), journal: backend.journal(scope), reopen: () => backend.steps(scope) }
})
