/**
 * The crash matrix on FileDurability, snapshot mode and appendLog mode, killed: at each crash the
 * process dies as a SIGKILL leaves the files (what was handed to the OS stays, nothing after it is
 * written, the lock file stays), and the next generation opens the journal again, as the next
 * process would. Each reopen is also checked to hold the old or the new state (file-crash-factory.ts).
 *
 * Both modes run without fsync here: a SIGKILL cannot tell a missing fsync (the OS still writes what
 * the process wrote), so this is the configuration a kill must not hurt either. fsync on is what
 * the power-loss matrix (file-crash-power-loss.test.ts) checks, against a stronger fault.
 */
import { afterAll } from 'vitest'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { fileCrashFactory } from './file-crash-factory.js'

const snapshot = fileCrashFactory({}, 'kill')
// Compacting every 16 records: each run of the workload folds the log into the snapshot several times.
const appendLog = fileCrashFactory({ appendLog: { compactEvery: 16, fsync: false } }, 'kill')

describeCrashMatrix('FileDurability (snapshot mode, killed)', snapshot.factory)
describeCrashMatrix('FileDurability (appendLog mode, killed)', appendLog.factory)

afterAll(() => {
  console.log(`FileDurability killed, snapshot mode: ${JSON.stringify(snapshot.figures)}`)
  console.log(`FileDurability killed, appendLog mode: ${JSON.stringify(appendLog.figures)}`)
})
