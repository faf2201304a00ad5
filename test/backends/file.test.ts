import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileDurability, type FileDurabilityOptions } from '../../src/backends/file/index.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'

/** A factory of FileDurability journals, each in a temp dir of its own, closed and removed after. */
function fileFactory(options: FileDurabilityOptions) {
  const dirs = new Map<DurabilityBackend, string>()
  return {
    async create() {
      const dir = await mkdtemp(join(tmpdir(), 'botmesh-file-'))
      const backend = await FileDurability.open(join(dir, 'durable.json'), options)
      dirs.set(backend, dir)
      return backend
    },
    async cleanup(backend: DurabilityBackend) {
      await (backend as FileDurability).close()
      await rm(dirs.get(backend)!, { recursive: true, force: true })
      dirs.delete(backend)
    },
  }
}

describeConformance('FileDurability (snapshot mode)', fileFactory({}))
describeConformance('FileDurability (snapshot mode, fsync)', fileFactory({ fsync: true }))
describeConformance('FileDurability (appendLog mode)', fileFactory({ appendLog: true }))
describeConformance('FileDurability (appendLog mode, compacting every 3)', fileFactory({ appendLog: { compactEvery: 3 } }))
