/**
 * The real-process SIGKILL test on eventsDurability: a child process runs the workload bot on a
 * locked FileEventJournal, or on a SharedFileEventJournal with appendLog, and is killed in the
 * middle of a handler, a provider call or a journal write; a new child with the same instanceId
 * recovers on the same file (taking over the dead pid's lock, or breaking its mutex).
 */
import { describeProcessCrash } from '../../test-utils/process-crash.js'
import { eventsCrashTarget } from '../fixtures/events/process-crash-backend.js'

describeProcessCrash('eventsDurability over a locked FileEventJournal', eventsCrashTarget('locked'))
describeProcessCrash('eventsDurability over a SharedFileEventJournal (appendLog)', eventsCrashTarget('shared-appendLog'), { runs: 3 })
