/**
 * The crash matrix on eventsDurability over a SharedFileEventJournal with appendLog (folding the
 * log every 16 lines, so every run folds several times): the next generation opens the file as a
 * new process would, breaking the mutex the dead one may have held.
 */
import { afterAll } from 'vitest'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { eventsCrashFactory, openSharedAppendLog, removeDirs } from './events-kit.js'

afterAll(removeDirs)

// On simulated time: the journal's clock is this process's (see test-utils/durability-crash.ts).
describeCrashMatrix('eventsDurability over a SharedFileEventJournal (appendLog)', eventsCrashFactory(openSharedAppendLog), {
  simulatedTime: true,
})
