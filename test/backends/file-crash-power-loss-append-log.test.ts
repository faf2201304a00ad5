/**
 * The crash matrix on FileDurability in appendLog mode (fsync on) under power loss, as
 * file-crash-power-loss.test.ts runs it in snapshot mode (see there).
 */
import { afterAll } from 'vitest'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { fileCrashFactory } from './file-crash-factory.js'

const appendLog = fileCrashFactory({ appendLog: { compactEvery: 16 } }, 'power-loss')

// On simulated time: the journal's clock is this process's (see test-utils/durability-crash.ts).
describeCrashMatrix('FileDurability (appendLog mode, fsync, power loss)', appendLog.factory, { simulatedTime: true })

afterAll(() => {
  console.log(`FileDurability power loss, appendLog mode: ${JSON.stringify(appendLog.figures)}`)
})
