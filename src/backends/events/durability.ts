/**
 * `botmesh/events/durability`: `eventsDurability({ journal, outbox? })` runs a bot's durability
 * on an `@botmesh/events` journal the app already keeps. The inbox records are event records of
 * that journal (channel 'botwa:durable', eventType 'botwa.inbound.message' or
 * 'botwa.inbound.interaction'), visible to its `list()` and `replay()`: a replayed record is
 * pending again, and the bot's sweeper picks it up. The outbox is kept as a sidecar of the journal
 * (the same file and the same atomic write as the inbox), or in a `DurableKv` passed as `outbox`.
 *
 * @module botmesh/events/durability
 */
import {
  type DurabilityBackend,
  type Journal,
  type DurableKv,
  KvDurability,
  optionNames,
  refuseUnknownOptions,
} from '../../core/backend-internals.js'
import { ConfigError, JournalClosedError } from '../../core/errors/errors.js'
import { SharedHandle } from '../common/shared-handle.js'
import { EventsJournal } from './events-journal.js'
import type { LeasedEventJournal } from '../../events/journal.js'
import { DURABLE_CHANNEL } from '../../events/append-plan.js'

/** Options of `eventsDurability`. */
export interface EventsDurabilityOptions {
  /**
   * The journal: a `FileEventJournal` opened with `{ lock: true }`, a `SharedFileEventJournal`, or
   * another `LeasedEventJournal`. An unlocked `FileEventJournal` is refused.
   */
  journal: LeasedEventJournal
  /**
   * Where the outbox (and the instances' heartbeats) live instead of the journal's own file: the
   * `DurableKv` of a database backend (`new PostgresDurability(…).kv`, `new RedisDurability(…).kv`).
   * The backend starts and stops it with the bot. @default the journal's sidecar
   */
  outbox?: DurableKv
}

/** The names `eventsDurability` takes. */
const EVENTS_DURABILITY_OPTION_NAMES = optionNames<EventsDurabilityOptions>({ journal: true, outbox: true })

/** The durability backend over an events journal. */
export function eventsDurability(options: EventsDurabilityOptions): EventsDurability {
  return new EventsDurability(options)
}

/** A durability backend whose inbox is an events journal (see `eventsDurability`). */
export class EventsDurability implements DurabilityBackend {
  readonly kind = 'events'
  /** Whether several processes may share it: the journal's call (`SharedFileEventJournal`). */
  readonly shared: boolean
  readonly scoped = true
  /** The events journal the inbox is kept in (the `journal` option). */
  readonly journalOfEvents: LeasedEventJournal
  /** The store of the outbox and instances: the `outbox` option, or the journal's sidecar. */
  readonly outbox: DurableKv
  readonly #external: boolean
  readonly #side: KvDurability
  /** Counts the bot's starts: the first starts the outbox store, the last stop flushes and stops it. */
  readonly #starts = new SharedHandle<true>(undefined)

  constructor(options: EventsDurabilityOptions) {
    refuseUnknownOptions('eventsDurability', options, EVENTS_DURABILITY_OPTION_NAMES, {
      path: 'open the journal first: eventsDurability({ journal: await FileEventJournal.open(path, { lock: true }) })',
    })
    const { journal, outbox } = options
    if (!journal || typeof journal.storage?.write !== 'function') {
      throw new ConfigError(
        'eventsDurability: journal must be a LeasedEventJournal (FileEventJournal.open(path, { lock: true }) or SharedFileEventJournal.open(path))',
      )
    }
    if (journal.writers === 'unguarded') {
      throw new ConfigError(
        `eventsDurability: the FileEventJournal at ${journal.name} was opened without { lock: true }, so nothing stops a second process ` +
          `from writing the file and losing the bot's records. Open it with FileEventJournal.open(path, { lock: true }), or use a SharedFileEventJournal.`,
      )
    }
    const side = outbox ?? journal.storage.sidecar
    if (!side) throw new ConfigError(`eventsDurability: the journal ${journal.name} keeps no side entries; pass a DurableKv as outbox`)
    this.journalOfEvents = journal
    this.outbox = side
    this.#external = outbox !== undefined
    this.#side = new KvDurability(side)
    this.shared = journal.writers === 'shared'
  }

  /** Checks the journal is open, and starts the outbox store on the first call; later calls wait for it. */
  async start(): Promise<void> {
    if (this.journalOfEvents.closed) throw new JournalClosedError(this.journalOfEvents.name)
    await this.#starts.acquire(async () => {
      if (this.#external) await this.outbox.start()
      return true
    })
  }

  /** When every start was matched: waits for the writes in flight, and stops the outbox store. The journal stays open: close it yourself. */
  async stop(): Promise<void> {
    await this.#starts.release(async () => {
      try {
        if (!this.journalOfEvents.closed) await this.journalOfEvents.storage.flush()
      } finally {
        if (this.#external) await this.outbox.stop()
      }
    })
  }

  now(): Promise<number> {
    return this.journalOfEvents.now()
  }

  journal(scopeId: string): Journal {
    return new EventsJournal(this.journalOfEvents, scopeId, this.#side.journal(scopeId), !this.#external)
  }

  async scopes(): Promise<string[]> {
    const [inbox, side] = await Promise.all([this.journalOfEvents.storage.scopes(DURABLE_CHANNEL), this.#side.scopes()])
    return [...new Set([...inbox, ...side])].sort()
  }
}

export { INBOUND_EVENT_TYPES, inboundEventId, toInboxRecord } from './inbox-mapping.js'
export { DURABLE_CHANNEL } from '../../events/append-plan.js'
