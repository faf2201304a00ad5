/**
 * The crash matrix on eventsDurability over a FileEventJournal opened with { lock: true }: the next
 * generation reopens the file as the next process would, taking over the dead one's pid lock.
 */
import { afterAll } from 'vitest'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { eventsCrashFactory, openLocked, removeDirs } from './events-kit.js'

afterAll(removeDirs)

// On simulated time: the journal's clock is this process's (see test-utils/durability-crash.ts).
describeCrashMatrix('eventsDurability over a locked FileEventJournal', eventsCrashFactory(openLocked), { simulatedTime: true })
