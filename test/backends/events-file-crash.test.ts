/**
 * The crash matrix and the real-process SIGKILL test on eventsDurability over a FileEventJournal
 * opened with { lock: true }: the next generation (or process) reopens the file, taking over the
 * dead one's pid lock.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll } from 'vitest'
import { eventsDurability, type EventsDurability } from '../../src/backends/events/durability.js'
import { describeCrashMatrix } from '../../test-utils/durability-crash.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { openJournal, type EventsChildArg } from '../fixtures/events/process-crash-backend.js'
import { eventsCrashFactory, openLocked, removeDirs } from './events-kit.js'

afterAll(removeDirs)

describeCrashMatrix('eventsDurability over a locked FileEventJournal', eventsCrashFactory(openLocked))

const opened: EventsDurability[] = []
describeProcessCrash('eventsDurability over a locked FileEventJournal', {
  module: fileURLToPath(new URL('../fixtures/events/process-crash-backend.ts', import.meta.url)),
  prepare(dir) {
    const arg: EventsChildArg = { path: join(dir, 'events.json'), storeFile: join(dir, 'store.db'), journal: 'locked' }
    return {
      arg,
      async open() {
        const backend = eventsDurability({ journal: await openJournal(arg) })
        opened.push(backend)
        return backend
      },
      cleanup: async () => {
        await Promise.all(opened.splice(0).map((backend) => backend.journalOfEvents.close()))
      },
    }
  },
})
