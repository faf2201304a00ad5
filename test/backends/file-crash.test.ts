/**
 * The crash matrix on FileDurability, snapshot mode and appendLog mode, killed: at each crash the
 * process dies as a SIGKILL leaves the files (what was handed to the OS stays, nothing after it is
 * written, the lock file stays), and the next generation opens the journal again, as the next
 * process would. Each reopen is also checked to hold the old or the new state (file-crash-factory.ts).
 *
 * Both modes run without fsync here: a SIGKILL cannot tell a missing fsync (the OS still writes what
 * the process wrote), so this is the configuration a kill must not hurt either. fsync on is what
 * the power-loss matrix (file-crash-power-loss.test.ts) checks, against a stronger fault.
 *
 * Snapshot mode here, appendLog mode in file-crash-append-log.test.ts: the two run at once.
 */
import { afterAll } from 'vitest'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { fileCrashFactory } from './file-crash-factory.js'

const snapshot = fileCrashFactory({}, 'kill')

// On simulated time: the journal's clock is this process's (see test-utils/durability-crash.ts).
describeCrashMatrix('FileDurability (snapshot mode, killed)', snapshot.factory, { simulatedTime: true })

afterAll(() => {
  console.log(`FileDurability killed, snapshot mode: ${JSON.stringify(snapshot.figures)}`)
})
