/**
 * The crash matrix on FileDurability in appendLog mode, killed, as file-crash.test.ts runs it in
 * snapshot mode (see there): without fsync, as a SIGKILL cannot tell a missing one.
 */
import { afterAll } from 'vitest'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { fileCrashFactory } from './file-crash-factory.js'

// Compacting every 16 records: each run of the workload folds the log into the snapshot several times.
const appendLog = fileCrashFactory({ appendLog: { compactEvery: 16, fsync: false } }, 'kill')

// On simulated time: the journal's clock is this process's (see test-utils/durability-crash.ts).
describeCrashMatrix('FileDurability (appendLog mode, killed)', appendLog.factory, { simulatedTime: true })

afterAll(() => {
  console.log(`FileDurability killed, appendLog mode: ${JSON.stringify(appendLog.figures)}`)
})
