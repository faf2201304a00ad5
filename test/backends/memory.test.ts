import { MemoryDurability } from '../../src/backends/memory/index.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'

describeConformance('MemoryDurability', { create: async () => new MemoryDurability() })
