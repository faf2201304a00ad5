import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SQLiteDurability, SQLiteStore } from '../../src/backends/sqlite/index.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'

const dirs = new Map<object, string>()

describeCrashMatrix(
  'SQLiteDurability',
  {
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'botmesh-sqlite-crash-'))
      const backend = new SQLiteDurability({ file: join(dir, 'bot.db') })
      dirs.set(backend, dir)
      return backend
    },
    // A new process opens the same file.
    async restart(crashed) {
      const dir = dirs.get(crashed)!
      const backend = new SQLiteDurability({ file: join(dir, 'bot.db') })
      dirs.set(backend, dir)
      return backend
    },
    async cleanup(backend) {
      const dir = dirs.get(backend)
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  },
  { simulatedTime: true },
)

describeProcessCrash('SQLiteDurability', {
  module: fileURLToPath(new URL('../fixtures/process-crash/sqlite-backend.ts', import.meta.url)),
  prepare(dir) {
    const file = join(dir, 'bot.db')
    return { arg: { file }, open: async () => new SQLiteStore({ file }).durability() }
  },
})
