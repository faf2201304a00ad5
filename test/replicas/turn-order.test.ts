/**
 * Chat turns keep arrival order when a replica is frozen or starved for longer than its leases, on
 * every backend of test/replicas/chat-turns.test.ts and on the shared servers. Time is a ManualClock
 * (every replica's and the backend's): leases lapse exactly when the test moves the clock, however
 * slowly a loaded host runs the turns' timers; nothing here waits for a timer to be punctual.
 *
 * - A holder frozen mid-run whose turn nobody took yet: its late release (after its completion was
 *   refused, the message claimed back by another replica's sweeper) must not drop the message from
 *   the queue, or the next message takes the turn and overtakes the one being replayed.
 * - A replica frozen between queueing a message and journaling it: the queue gives its place up after
 *   a lease, and a later message runs; journaled late, the message arrives after that one (its
 *   createdAt moves), so the journal's arrival order is the order the handlers ran.
 * - The same stall inside the runtime's admission: the message takes its place anew before its
 *   channel hears it was taken, so it stays behind even when its replica then dies and another's
 *   sweeper claims it back (the replayed message never re-arrives by itself).
 * - A message whose journal write lands after its place was given up (a transaction committed
 *   late) and whose replica dies before it looks: the turn record names the place given up, so the
 *   sweeper's claim of it arrives anew at the end too, after the chat's queue emptied.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemoryDurability } from '../../src/core/index.js'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { SharedFileEventJournal } from '../../src/events/index.js'
import { eventsDurability } from '../../src/backends/events/durability.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { ChatTurns } from '../../src/core/durability/turns/chat-turns.js'
import { resolveDurabilityConfig } from '../../src/core/durability/config.js'
import { DurabilityEngine } from '../../src/core/durability/engine.js'
import type { HeldRecord } from '../../src/core/durability/leases/held-record.js'
import { admitInbound, claimInbound, completeInbound } from '../../src/core/durability/admission/inbox.js'
import { Admission } from '../../src/core/durability/admission/admission.js'
import type { Transport } from '../../src/core/durability/port.js'
import { NO_TRACING } from '../../src/core/durability/tracing.js'
import { ManualClock } from '../../src/testing/manual-clock.js'
import { recordId } from '../../test-utils/record-id.js'
import { sharedTargets } from '../backends/shared-targets.js'
import { useCleanups } from '../../test-utils/lifecycle.js'

const LEASE_MS = 1_000
const CHAT = 'c'
const namespace = { tenantId: 't', environmentId: 'e', botId: 'b', connectionId: 'c' }

/** A fresh storage: a backend object per replica over it (as separate processes would open it), and its cleanup. */
interface Storage {
  backend(): Promise<DurabilityBackend>
  cleanup(): Promise<void>
}

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const tempFile = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-turn-order-'))
  dirs.push(dir)
  return join(dir, name)
}

const shared = await sharedTargets()
const targets: { name: string; available: boolean; fresh: (clock: ManualClock) => Storage }[] = [
  {
    name: 'MemoryDurability (one object)',
    available: true,
    fresh: (clock) => {
      const backend = new MemoryDurability({ now: clock.now })
      return { backend: async () => backend, cleanup: async () => {} }
    },
  },
  {
    name: 'SQLite (one store object per replica over one file)',
    available: true,
    fresh: () => {
      const file = tempFile('bot.db')
      return { backend: async () => new SQLiteStore({ file }).durability(), cleanup: async () => {} }
    },
  },
  {
    name: 'a SharedFileEventJournal (one journal object per replica over one file)',
    available: true,
    fresh: () => {
      const file = tempFile('events.json')
      const journals: SharedFileEventJournal[] = []
      return {
        backend: async () => {
          const journal = await SharedFileEventJournal.open(file)
          journals.push(journal)
          return eventsDurability({ journal })
        },
        cleanup: async () => {
          await Promise.all(journals.map((journal) => journal.close()))
        },
      }
    },
  },
  ...shared.map((target) => ({
    name: target.name,
    available: target.available,
    fresh: () => {
      const storage = target.fresh()
      return { backend: async () => storage.open(), cleanup: () => storage.cleanup() }
    },
  })),
]

/**
 * One replica's inbox admissions held back until `release()`: `reached` resolves when the first one
 * is about to be written (its message queued already), as a replica frozen in between would be.
 */
class Stall {
  #open!: () => void
  #reach!: () => void
  readonly #opened = new Promise<void>((resolve) => (this.#open = resolve))
  readonly reached = new Promise<void>((resolve) => (this.#reach = resolve))
  constructor(readonly instanceId: string) {}
  release(): void {
    this.#open()
  }
  wrap(backend: DurabilityBackend): DurabilityBackend {
    const journalOf = (scopeId: string) =>
      new Proxy(backend.journal(scopeId), {
        get: (journal, key) =>
          key !== 'write'
            ? bound(journal, key)
            : async (name: Parameters<typeof journal.write>[0], writes: Parameters<typeof journal.write>[1]) => {
                if (name === 'inbox.admit') (this.#reach(), await this.#opened)
                return journal.write(name, writes)
              },
      })
    return new Proxy(backend, { get: (target, key) => (key === 'journal' ? journalOf : bound(target, key)) })
  }
}

/** A property of `target`, its methods bound to it (they use private fields a proxy does not have). */
function bound(target: object, key: string | symbol): unknown {
  const value: unknown = Reflect.get(target, key, target)
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
}

/** One replica: its engine (on the test's clock) and its chat turns. */
interface Replica {
  engine: DurabilityEngine
  turns: ChatTurns
}

describe.each(targets)('chat turns in arrival order across frozen replicas on $name', (target) => {
  const cleanups = useCleanups()

  async function setUp(names: string[], stalled?: Stall): Promise<{ clock: ManualClock; replicas: Replica[] }> {
    const clock = new ManualClock()
    const storage = target.fresh(clock)
    cleanups.push(() => storage.cleanup())
    const replicas: Replica[] = []
    for (const instanceId of names) {
      const opened = await storage.backend()
      const backend = stalled?.instanceId === instanceId ? stalled.wrap(opened) : opened
      await backend.start()
      cleanups.push(() => backend.stop())
      const config = resolveDurabilityConfig(
        { backend, instanceId, clock: clock.now, inbox: { leaseMs: LEASE_MS }, coordination: { turnLeaseMs: LEASE_MS } },
        namespace,
        backend,
      )
      // Never synced to the backend's clock: every replica's time is the ManualClock's, to the millisecond.
      const engine = new DurabilityEngine(backend, config, 'scope', { dead() {}, ambiguous() {}, warn() {}, error() {} })
      const turns = new ChatTurns(engine, LEASE_MS)
      cleanups.push(() => turns.stop())
      replicas.push({ engine, turns })
    }
    return { clock, replicas }
  }

  /** What the runtime's admission does: the message joins its chat's queue, then is journaled with that arrival. */
  async function admit(replica: Replica, eventId: string, arrivedAt?: number): Promise<HeldRecord<'inbox'>> {
    const event = { id: eventId, chatId: CHAT, text: eventId }
    const createdAt = arrivedAt ?? (await replica.turns.join(CHAT, recordId(eventId, CHAT)))
    const admitted = await admitInbound(replica.engine, event, {}, 'mock', createdAt)
    if (!('held' in admitted)) throw new Error(`${eventId} was journaled already`)
    return admitted.held
  }

  /** The heartbeat of a live replica's lease keeper, at the test's time. */
  async function renew(replica: Replica, held: HeldRecord<'inbox'>): Promise<void> {
    expect(
      await held.update('inbox.heartbeat', (record) => ({
        ...record,
        lease: { ...record.lease!, expiresAt: replica.engine.now() + LEASE_MS },
      })),
    ).toBe(true)
  }

  const queueOf = async (replica: Replica) =>
    ((await replica.engine.journal.read('turns', [CHAT]))[0]?.record.queue ?? []).map((entry) => entry.id)

  it.runIf(target.available)(
    'a holder frozen mid-run keeps its message at the head after its late release: the next message waits for the replay',
    async () => {
      const { clock, replicas } = await setUp(['a', 'b', 'c'])
      const [a, b, c] = replicas as [Replica, Replica, Replica]
      const m1 = await admit(a, 'm1')
      const m2 = await admit(b, 'm2')
      const first = await a.turns.take(m1)
      expect(first).toBeDefined()
      // a freezes mid-run: its turn and m1's inbox lease lapse; b's replica stays live.
      await a.turns.stop()
      clock.advance(LEASE_MS + 1)
      await renew(b, m2)
      // c's sweeper claims m1 back before anyone took the turn.
      const [found] = await c.engine.journal.read('inbox', [m1.id])
      const replay = await claimInbound(c.engine, found!)
      expect(replay).toBeDefined()
      // a thaws: its completion is refused, its run ends, it releases the turn it still holds by token.
      expect(await completeInbound(a.engine, m1)).toBe(false)
      await a.turns.release(first!)
      expect(await queueOf(b)).toEqual([m1.id, m2.id])
      // b's message waits behind the replay of m1, which takes the turn.
      let secondTaken = false
      const second = b.turns.take(m2).then((turn) => ((secondTaken = true), turn))
      const replayTurn = await c.turns.take(replay!)
      expect(replayTurn?.token).toBeGreaterThan(first!.token)
      expect(secondTaken).toBe(false)
      expect(await completeInbound(c.engine, replay!)).toBe(true)
      await c.turns.release(replayTurn!)
      const secondTurn = await second
      expect(secondTurn?.inboxId).toBe(m2.id)
      await b.turns.release(secondTurn!)
      expect(a.engine.metrics.snapshot().staleLeases).toBe(1)
    },
    60_000,
  )

  it.runIf(target.available)(
    'a message journaled after the queue gave up its place arrives after the message that ran meanwhile',
    async () => {
      const { clock, replicas } = await setUp(['a', 'b'])
      const [a, b] = replicas as [Replica, Replica]
      // a queues m1, then freezes before journaling it; b queues and journals m2.
      const arrival = await a.turns.join(CHAT, recordId('m1', CHAT))
      const m2 = await admit(b, 'm2')
      expect(m2.record.createdAt).toBeGreaterThan(arrival)
      clock.advance(LEASE_MS + 1)
      await renew(b, m2)
      // m1 was never journaled within a lease: its place is given up and m2 takes the turn.
      const second = await b.turns.take(m2)
      expect(second?.inboxId).toBe(m2.id)
      // a thaws and journals m1 with the arrival it was given; it waits for m2's turn to end.
      const m1 = await admit(a, 'm1', arrival)
      const first = a.turns.take(m1)
      expect(await completeInbound(b.engine, m2)).toBe(true)
      await b.turns.release(second!)
      const firstTurn = await first
      expect(firstTurn?.inboxId).toBe(m1.id)
      await a.turns.release(firstTurn!)
      // The journal's arrival order is the order the handlers ran: m2, then m1.
      const [r1, r2] = await a.engine.journal.read('inbox', [m1.id, m2.id])
      expect(r1!.record.createdAt).toBeGreaterThan(r2!.record.createdAt)
      expect(m1.record.createdAt).toBe(r1!.record.createdAt)
    },
    60_000,
  )

  it.runIf(target.available)(
    "a message journaled late by the runtime's admission takes its place anew before it is acknowledged: a replay by another replica stays behind",
    async () => {
      const stall = new Stall('a')
      const { clock, replicas } = await setUp(['a', 'b', 'c'], stall)
      const [a, b, c] = replicas as [Replica, Replica, Replica]
      const transport = { name: 'mock', journalEvent: () => ({}) } as unknown as Transport
      const runs: HeldRecord<'inbox'>[] = []
      const admission = new Admission({
        engine: a.engine,
        transport,
        tracing: NO_TRACING,
        turns: a.turns,
        runUnjournaled: () => expect.fail('m1 was journaled'),
        recovering: () => undefined,
      })
      // a queues m1 and stalls before journaling it; b journals m2, and after a lease takes the turn.
      const acknowledged = admission.admit({ id: 'm1', chatId: CHAT, text: 'm1' }, (held) => runs.push(held))
      await stall.reached
      const m2 = await admit(b, 'm2')
      clock.advance(LEASE_MS + 1)
      await renew(b, m2)
      const second = await b.turns.take(m2)
      expect(second?.inboxId).toBe(m2.id)
      // a thaws: by the time m1's channel hears it was taken, m1 arrived after m2.
      stall.release()
      await acknowledged
      const m1 = runs[0]!
      const [atAck] = await b.engine.journal.read('inbox', [m1.id])
      expect(atAck!.record.createdAt).toBeGreaterThan(m2.record.createdAt)
      expect(await queueOf(b)).toEqual([m2.id, m1.id])
      // a dies before m1's turn; m2 finishes; m1's lease lapses and c's sweeper claims it back.
      await a.turns.stop()
      expect(await completeInbound(b.engine, m2)).toBe(true)
      await b.turns.release(second!)
      clock.advance(LEASE_MS + 1)
      const [found] = await c.engine.journal.read('inbox', [m1.id])
      const replay = await claimInbound(c.engine, found!)
      const replayTurn = await c.turns.take(replay!)
      expect(replayTurn?.inboxId).toBe(m1.id)
      expect(await completeInbound(c.engine, replay!)).toBe(true)
      await c.turns.release(replayTurn!)
      // The journal's arrival order is the order the handlers ran: m2, then m1.
      const [r1, r2] = await c.engine.journal.read('inbox', [m1.id, m2.id])
      expect(r1!.record.createdAt).toBeGreaterThan(r2!.record.createdAt)
    },
    60_000,
  )

  it.runIf(target.available)(
    "a message journaled after its place was given up, its replica dead before it looked: another replica's claim of it arrives anew",
    async () => {
      const { clock, replicas } = await setUp(['a', 'b', 'c'])
      const [a, b, c] = replicas as [Replica, Replica, Replica]
      // a queues m1 and stalls; b's m2 takes the turn a lease later, giving m1's place up, and runs.
      const arrival = await a.turns.join(CHAT, recordId('m1', CHAT))
      const m2 = await admit(b, 'm2')
      clock.advance(LEASE_MS + 1)
      await renew(b, m2)
      const second = await b.turns.take(m2)
      expect(second?.inboxId).toBe(m2.id)
      expect(await completeInbound(b.engine, m2)).toBe(true)
      await b.turns.release(second!)
      // m1's write lands with the arrival it was given (a commit held back by the stall), and a dies.
      const m1 = await admit(a, 'm1', arrival)
      await a.turns.stop()
      // c's sweeper claims m1 once its lease is over: its turn comes, and it arrives after m2.
      clock.advance(LEASE_MS + 1)
      const [found] = await c.engine.journal.read('inbox', [m1.id])
      const replay = await claimInbound(c.engine, found!)
      const turn = await c.turns.take(replay!)
      expect(turn?.inboxId).toBe(m1.id)
      expect(await completeInbound(c.engine, replay!)).toBe(true)
      await c.turns.release(turn!)
      // The journal's arrival order is the order the handlers ran: m2, then m1.
      const [r1, r2] = await c.engine.journal.read('inbox', [m1.id, m2.id])
      expect(r1!.record.createdAt).toBeGreaterThan(r2!.record.createdAt)
    },
    60_000,
  )
})
