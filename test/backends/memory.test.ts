import { MemoryDurability } from '../../src/core/index.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'

describeConformance('MemoryDurability', { create: async () => new MemoryDurability() })
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'

// On simulated time: the journal's clock is this process's (see test-utils/durability-crash.ts).
describeCrashMatrix('MemoryDurability', { create: async () => new MemoryDurability() }, { simulatedTime: true })
