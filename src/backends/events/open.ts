/**
 * How a tool opens an events journal as a durability backend from a path (the CLI's `events:` and
 * `events+shared:` URLs), and makes throwaway ones for the conformance suite, the crash matrix and
 * the benchmark. Nothing here is needed to run a bot: open a journal and call `eventsDurability`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { JournalLockedError } from '../../core/errors/errors.js'
import type { DurabilityBackend } from '../../core/spi.js'
import { eventsDurability, type EventsDurability } from './durability.js'
import { FileEventJournal } from '../../events/file-journal.js'
import type { LeasedEventJournal } from '../../events/journal.js'
import { SharedFileEventJournal } from '../../events/shared-journal.js'

/** An events backend opened from a path, and how to let go of it. */
export interface OpenedEventsBackend {
  /** Not started: the caller starts and stops it. */
  backend: EventsDurability
  journal: LeasedEventJournal
  /** Whether every write will be refused (a read, or a file a live process holds). */
  readOnly: boolean
  /** The live process holding the file, when it was opened read-only because of it. */
  heldBy: number | undefined
  /** Closes the journal (after the backend was stopped). Idempotent. */
  close(): Promise<void>
}

/**
 * Opens eventsDurability over the journal at `path`: a `FileEventJournal` (locked for writes,
 * read-only for `access: 'read'`, and read-only naming the holder when a live process holds its
 * lock), or with `shared` a `SharedFileEventJournal`, which every process may open.
 */
export async function openEventsBackend(
  path: string,
  options: { shared: boolean; access: 'read' | 'write' | 'create' },
): Promise<OpenedEventsBackend> {
  const opened = (journal: LeasedEventJournal, heldBy?: number): OpenedEventsBackend => ({
    backend: eventsDurability({ journal }),
    journal,
    readOnly: journal.writers === 'read-only',
    heldBy,
    close: () => journal.close(),
  })
  if (options.shared) return opened(await SharedFileEventJournal.open(path))
  if (options.access === 'read') return opened(await FileEventJournal.open(path, { readOnly: true }))
  try {
    return opened(await FileEventJournal.open(path, { lock: true }))
  } catch (error) {
    if (!(error instanceof JournalLockedError) || error.pid === undefined || error.pid === process.pid) throw error
    return opened(await FileEventJournal.open(path, { readOnly: true }), error.pid)
  }
}

/** Fresh, empty events backends in temp dirs, the backend a restarted process opens, and their removal. */
export interface EventsThrowawayFactory {
  readonly description: string
  create(): Promise<DurabilityBackend>
  restart(crashed: DurabilityBackend): Promise<DurabilityBackend>
  cleanup(backend: DurabilityBackend): Promise<void>
}

/** Throwaway events backends under `parent` (a locked FileEventJournal, or with `shared` a SharedFileEventJournal). */
export function eventsThrowawayFactory(options: { shared: boolean; parent: string }): EventsThrowawayFactory {
  const dirs = new Map<DurabilityBackend, string>()
  const open = async (dir: string) => {
    const path = join(dir, 'events.json')
    const journal = options.shared ? await SharedFileEventJournal.open(path) : await FileEventJournal.open(path, { lock: true })
    const backend = eventsDurability({ journal })
    dirs.set(backend, dir)
    return backend
  }
  const release = async (backend: DurabilityBackend) => {
    dirs.delete(backend)
    await (backend as EventsDurability).journalOfEvents.close()
  }
  return {
    description: `eventsDurability over a ${options.shared ? 'SharedFileEventJournal' : 'FileEventJournal (locked)'} in a temp dir under ${options.parent}`,
    create: async () => open(await mkdtemp(join(options.parent, '.botmesh-throwaway-'))),
    async restart(crashed) {
      const dir = dirs.get(crashed)!
      // The lock of a FileEventJournal is released only by close(): the next "process" opens the file after it.
      await release(crashed).catch(() => {})
      return open(dir)
    },
    async cleanup(backend) {
      const dir = dirs.get(backend)
      await release(backend).catch(() => {})
      if (dir) await rm(dir, { recursive: true, force: true })
    },
  }
}
