/**
 * The crash matrix on FileDurability with fsync on, under power loss: each generation's journal is
 * opened over a `PowerLossFs`, and at the crash the power is cut: every write not yet fsynced is
 * dropped, kept or torn, and renames not made durable by a directory fsync are undone. The journal
 * reopened with the real file system must hold the old or the new state (every acknowledged write,
 * each write whole or absent, never refused), and the matrix's verdict must hold as after a kill.
 */
import { afterAll } from 'vitest'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { fileCrashFactory } from './file-crash-factory.js'

const snapshot = fileCrashFactory({ fsync: true }, 'power-loss')
const appendLog = fileCrashFactory({ appendLog: { compactEvery: 16 } }, 'power-loss')

describeCrashMatrix('FileDurability (snapshot mode, fsync, power loss)', snapshot.factory)
describeCrashMatrix('FileDurability (appendLog mode, fsync, power loss)', appendLog.factory)

afterAll(() => {
  console.log(`FileDurability power loss, snapshot mode: ${JSON.stringify(snapshot.figures)}`)
  console.log(`FileDurability power loss, appendLog mode: ${JSON.stringify(appendLog.figures)}`)
})
