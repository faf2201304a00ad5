/**
 * The crash matrix with `durability.encryption` on, on every kind of backend (the servers' in
 * encrypted-crash-servers.test.ts, so both halves run at once): each crash point
 * before and after (policy 'skip') plus a seeded random case, every generation sealing its journal
 * under the same key. Besides the matrix's own verdict (nothing lost, nothing sent twice, the
 * journal settled), each case checks that no record's content reached the backend in clear. The
 * factories are those of each backend's own crash test: a restart reopens the storage as the next
 * process would.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { SQLiteDurability } from '../../src/backends/sqlite/index.js'
import { MemoryDurability } from '../../src/core/index.js'
import { describeCrashMatrix, type CrashMatrixSelection } from '../../test-utils/durability-crash.js'
import { eventsCrashFactory, openLocked, removeDirs } from './events-kit.js'
import { fileCrashFactory } from './file-crash-factory.js'

// These backends' clock is this process's: their cases run on simulated time (test-utils/durability-crash.ts).
const SEALED: CrashMatrixSelection = {
  encryption: { keys: { k1: randomBytes(32) }, current: 'k1' },
  policies: ['skip'],
  random: 1,
  simulatedTime: true,
}

afterAll(removeDirs)

describeCrashMatrix('MemoryDurability, encrypted', { create: async () => new MemoryDurability() }, SEALED)

describeCrashMatrix(
  'FileDurability (appendLog mode, killed), encrypted',
  fileCrashFactory({ appendLog: { compactEvery: 16, fsync: false } }, 'kill').factory,
  SEALED,
)

describeCrashMatrix('eventsDurability over a locked FileEventJournal, encrypted', eventsCrashFactory(openLocked), SEALED)

const sqliteDirs = new Map<object, string>()
describeCrashMatrix(
  'SQLiteDurability, encrypted',
  {
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'botmesh-sealed-crash-'))
      const backend = new SQLiteDurability({ file: join(dir, 'bot.db') })
      sqliteDirs.set(backend, dir)
      return backend
    },
    async restart(crashed) {
      const dir = sqliteDirs.get(crashed)!
      const backend = new SQLiteDurability({ file: join(dir, 'bot.db') })
      sqliteDirs.set(backend, dir)
      return backend
    },
    async cleanup(backend) {
      const dir = sqliteDirs.get(backend)
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  },
  SEALED,
)
