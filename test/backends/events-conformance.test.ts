/**
 * The conformance suite on eventsDurability: over a locked FileEventJournal, over a
 * SharedFileEventJournal (appendLog on and off), and over a shared journal with the outbox in
 * PostgreSQL (see events-postgres.test.ts for the last).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileEventJournal, SharedFileEventJournal, type LeasedEventJournal } from '../../src/events/index.js'
import { eventsDurability, type EventsDurability } from '../../src/backends/events/durability.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'

function factory(open: (path: string) => Promise<LeasedEventJournal>) {
  const dirs = new Map<object, string>()
  return {
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'botmesh-events-'))
      const backend = eventsDurability({ journal: await open(join(dir, 'events.json')) })
      dirs.set(backend, dir)
      return backend
    },
    async cleanup(backend: unknown) {
      await (backend as EventsDurability).journalOfEvents.close()
      const dir = dirs.get(backend as object)
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}

describeConformance(
  'eventsDurability over a locked FileEventJournal',
  factory((path) => FileEventJournal.open(path, { lock: true })),
)
describeConformance(
  'eventsDurability over a SharedFileEventJournal',
  factory((path) => SharedFileEventJournal.open(path)),
)
describeConformance(
  'eventsDurability over a SharedFileEventJournal with appendLog',
  factory((path) => SharedFileEventJournal.open(path, { appendLog: { compactEvery: 20 } })),
)
