/**
 * The crash matrix on FileDurability with fsync on, under power loss: each generation's journal is
 * opened over a `PowerLossFs`, and at the crash the power is cut: every write not yet fsynced is
 * dropped, kept or torn, and renames not made durable by a directory fsync are undone. The journal
 * reopened with the real file system must hold the old or the new state (every acknowledged write,
 * each write whole or absent, never refused), and the matrix's verdict must hold as after a kill.
 * Snapshot mode here, appendLog mode in file-crash-power-loss-append-log.test.ts: the two run at once.
 */
import { afterAll } from 'vitest'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { fileCrashFactory } from './file-crash-factory.js'

const snapshot = fileCrashFactory({ fsync: true }, 'power-loss')

// On simulated time: the journal's clock is this process's (see test-utils/durability-crash.ts).
describeCrashMatrix('FileDurability (snapshot mode, fsync, power loss)', snapshot.factory, { simulatedTime: true })

afterAll(() => {
  console.log(`FileDurability power loss, snapshot mode: ${JSON.stringify(snapshot.figures)}`)
})
