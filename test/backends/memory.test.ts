import { MemoryDurability } from '../../src/core/index.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'

describeConformance('MemoryDurability', { create: async () => new MemoryDurability() })
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'

describeCrashMatrix('MemoryDurability', { create: async () => new MemoryDurability() })
