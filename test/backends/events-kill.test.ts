/**
 * The real-process SIGKILL test on eventsDurability: a child process runs the workload bot on a
 * locked FileEventJournal, or on a SharedFileEventJournal with appendLog, and is killed in the
 * middle of a handler, a provider call or a journal write; a new child with the same instanceId
 * recovers on the same file (taking over the dead pid's lock, or breaking its mutex).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { eventsDurability, type EventsDurability } from '../../src/backends/events/durability.js'
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { openJournal, type EventsChildArg } from '../fixtures/events/process-crash-backend.js'

const module = fileURLToPath(new URL('../fixtures/events/process-crash-backend.ts', import.meta.url))

function target(journal: EventsChildArg['journal']) {
  return {
    module,
    prepare(dir: string) {
      const arg: EventsChildArg = { path: join(dir, 'events.json'), storeFile: join(dir, 'store.db'), journal }
      const opened: EventsDurability[] = []
      return {
        arg,
        async open() {
          const backend = eventsDurability({ journal: await openJournal(arg) })
          opened.push(backend)
          return backend
        },
        cleanup: async () => {
          await Promise.all(opened.map((backend) => backend.journalOfEvents.close()))
        },
      }
    },
  }
}

describeProcessCrash('eventsDurability over a locked FileEventJournal', target('locked'))
describeProcessCrash('eventsDurability over a SharedFileEventJournal (appendLog)', target('shared-appendLog'), { runs: 3 })
