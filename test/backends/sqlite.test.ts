import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { SQLiteDurability, SQLiteStore } from '../../src/backends/sqlite/index.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'
import { tempDir } from '../fixtures/sqlite/temp.js'

const cleanups = new Map<DurabilityBackend, () => Promise<void>>()

describeConformance('SQLiteDurability', {
  async create() {
    const temp = tempDir()
    const backend = new SQLiteDurability({ file: temp.file() })
    cleanups.set(backend, async () => temp.remove())
    return backend
  },
  cleanup: async (backend) => cleanups.get(backend)?.(),
})

// The same suite on the journals a store hands out (one connection for both).
describeConformance('SQLiteStore.durability()', {
  async create() {
    const temp = tempDir()
    const store = new SQLiteStore({ file: temp.file() })
    await store.start()
    const backend = store.durability()
    cleanups.set(backend, async () => {
      await store.stop()
      temp.remove()
    })
    return backend
  },
  cleanup: async (backend) => cleanups.get(backend)?.(),
})
