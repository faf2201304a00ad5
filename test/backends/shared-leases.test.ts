/**
 * instanceId and lease expiry on the shared backends (PostgreSQL, Redis), with real processes where a
 * process dies:
 *
 * - the default instanceId gets a per-boot suffix on a shared backend, so two processes on one host
 *   never share it, and a restart with the default id waits for the old leases to expire;
 * - set explicitly, a restart reclaims its own leases at once: a process killed mid-handler, and a new
 *   bot with the same id finishes the record long before the lease would expire (while another
 *   replica, alive all along, never takes it);
 * - lease expiry is judged by the server's clock: a replica whose own clock is ten minutes off
 *   neither steals a live lease nor keeps a dead one.
 *
 * "Before/after expiry" is read from the journal's times and the server's clock, never measured here.
 * A replica knows the server's clock only as an estimate (the midpoint of a now() round trip), so a
 * takeover may come up to half a round trip before the expiry: that much is allowed, measured from
 * the round trips the replica's own syncs took (on a busy host they are long), not assumed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { DurabilityBackend, Journal } from '../../src/core/durability/journal/backend.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { crashable } from '../../src/testing/crashable.js'
import { createOracle } from '../../src/testing/process-crash/oracle-file.js'
import { recordId } from '../../test-utils/record-id.js'
import { deferred, never, waitFor } from '../../test-utils/wait.js'
import { readReplicaLines, type ReplicaConfig } from '../fixtures/replicas/protocol.js'
import { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { quick, sweeps, useSharedBots, type SharedBot } from './shared-bots.js'
import { sharedTargets, type SharedStorage } from './shared-targets.js'

const targets = await sharedTargets()
const TEN_MINUTES = 600_000
/** Room for a loaded machine: each test waits on state with timeouts of its own well inside this. */
const TEST_TIMEOUT_MS = 90_000
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const DEFAULT_ID = new RegExp(`^${escaped(hostname())}/bot/default/[0-9a-f]{8}$`)

/** The journal's times are whole ms, and so are both clocks the engine takes a midpoint of. */
const CLOCK_GRAIN_MS = 3

/**
 * Times the backend's now() calls (the engine's clock syncs): how far ahead of the server's clock the
 * engine's estimate can be is half the longest round trip, plus the clocks' grain.
 */
function timedSyncs<B extends DurabilityBackend>(backend: B): { backend: B; aheadAtMostMs(): number } {
  const now = backend.now.bind(backend)
  let longestMs = 0
  backend.now = async () => {
    const started = performance.now()
    try {
      return await now()
    } finally {
      longestMs = Math.max(longestMs, performance.now() - started)
    }
  }
  return { backend, aheadAtMostMs: () => longestMs / 2 + CLOCK_GRAIN_MS }
}

const reply = (bot: import('../../src/core/bot/bot.js').Bot) => bot.when(TEXT, (ctx) => ctx.reply(`re ${ctx.ref.id}`))

describe.each(targets)('instanceId and lease expiry on $name', (target) => {
  const bots = useSharedBots()
  const processes: ReplicaProcess[] = []
  const dirs: string[] = []
  afterEach(async () => {
    for (const replica of processes.splice(0)) {
      replica.signal('SIGKILL')
      await replica.exited
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  /** A replica process on the storage whose "slow" handler outlasts the test (the process is killed in it). */
  const startProcess = async (storage: SharedStorage, overrides: Partial<ReplicaConfig>) => {
    const dir = mkdtempSync(join(tmpdir(), 'botmesh-leases-'))
    dirs.push(dir)
    const oracleFile = join(dir, 'oracle.ndjson')
    createOracle(oracleFile)
    const replica = await ReplicaProcess.start({
      name: 'child',
      backendModule: storage.module,
      backendArg: storage.arg,
      oracleFile,
      leaseMs: 60_000,
      pollMs: 50,
      slowMs: 600_000,
      ...overrides,
    })
    processes.push(replica)
    return { replica, oracleFile }
  }

  /** Delivers a slow message to the process and SIGKILLs it once its handler started; resolves to the record it left. */
  const killInHandler = async (replica: ReplicaProcess, journal: Journal, eventId: string): Promise<InboxRecord> => {
    const id = recordId(eventId)
    replica.onHandler((started) => started === id && replica.signal('SIGKILL'))
    expect(await replica.deliver({ id: eventId, chatId: 'c1', text: `slow ${eventId}` })).toBe('acked')
    expect(await replica.exited).toBe('SIGKILL')
    const [left] = await journal.read('inbox', [id])
    expect(left!.record).toMatchObject({ state: 'processing', fencingToken: 1, lease: { owner: replica.instanceId, token: 1 } })
    return left!.record
  }

  /** A backend object of the test's own, to read the journal and the server's clock. */
  const probe = async (storage: SharedStorage, scope: string) => {
    const backend = storage.open()
    await backend.start()
    return { backend, journal: backend.journal(scope) }
  }

  /**
   * Waits until another holder finished the record, and collects every sighting of it claimed while
   * the old lease was still live on the server's clock by more than the taker's clock may be ahead
   * (the record is read first, the clock after, so a sighting is never earlier than the claim).
   */
  const watchTakeover = async (
    journal: Journal,
    server: { now(): Promise<number> },
    id: string,
    expiresAt: number,
    taker: { aheadAtMostMs(): number },
  ) => {
    const sightings: { token: number; beforeExpiryMs: number }[] = []
    const done = await waitFor(
      async () => {
        const [found] = await journal.read('inbox', [id])
        const now = await server.now()
        if (found!.record.fencingToken >= 2 && now < expiresAt)
          sightings.push({ token: found!.record.fencingToken, beforeExpiryMs: expiresAt - now })
        return found!.record.state === 'done' ? found!.record : undefined
      },
      { timeoutMs: 30_000, intervalMs: 20, message: `${id} taken over and done` },
    )
    const allowedMs = taker.aheadAtMostMs()
    const early = sightings
      .filter((sighting) => sighting.beforeExpiryMs > allowedMs)
      .map(
        (sighting) =>
          `token ${sighting.token} ${sighting.beforeExpiryMs} ms before the old lease expired (the taker's clock is ahead by at most ${allowedMs.toFixed(1)} ms)`,
      )
    return { done, early }
  }

  it.runIf(target.available)(
    'the default instanceId gets a per-boot suffix on a shared backend: two processes on one host never share it',
    async () => {
      const storage = bots.storage(target)
      const backend = storage.open()
      expect(backend.shared).toBe(true)
      const here = await bots.start(storage, { backend, durability: quick() })
      expect(here.bot.durability!.instanceId).toMatch(DEFAULT_ID)
      const { replica } = await startProcess(storage, { name: 'default-id' })
      expect(replica.instanceId).toMatch(DEFAULT_ID)
      expect(replica.instanceId).not.toBe(here.bot.durability!.instanceId)
    },
    TEST_TIMEOUT_MS,
  )

  it.runIf(target.available)(
    'with the default instanceId, a restarted process waits until the dead one’s lease expired on the server',
    async () => {
      const storage = bots.storage(target)
      const { backend, journal } = await probe(storage, 'default/default/bot/default')
      const { replica } = await startProcess(storage, { name: 'default-id', leaseMs: 1_500 })
      const left = await killInHandler(replica, journal, 'm1')

      const taker = timedSyncs(storage.open())
      const restarted = await bots.start(storage, {
        backend: taker.backend,
        durability: quick({ inbox: { leaseMs: 1_500 } }),
        setup: reply,
      })
      expect(restarted.bot.durability!.instanceId).not.toBe(left.lease!.owner)
      const { done, early } = await watchTakeover(journal, backend, recordId('m1'), left.lease!.expiresAt, taker)
      expect(early).toEqual([])
      expect(done.fencingToken).toBe(2)
      const [claim] = restarted.tap.written<InboxRecord>('inbox.claim')
      expect(claim!.lease!.acquiredAt).toBeGreaterThanOrEqual(left.lease!.expiresAt)
      expect(restarted.provider.texts()).toEqual([`re ${recordId('m1')}`])
    },
    TEST_TIMEOUT_MS,
  )

  it.runIf(target.available)(
    'set explicitly, a restart reclaims its own leases at once: killed mid-handler, a new bot with the same id finishes the record before its lease would expire; another replica never takes it',
    async () => {
      const storage = bots.storage(target)
      const scope = 'default/default/bot/default'
      const { journal } = await probe(storage, scope)
      const other = await bots.start(storage, {
        durability: quick({ instanceId: 'pod-1', inbox: { leaseMs: 60_000 }, outbox: { leaseMs: 60_000 } }),
        setup: reply,
      })
      const { replica, oracleFile } = await startProcess(storage, { name: 'pod-0', instanceId: 'pod-0' })
      const left = await killInHandler(replica, journal, 'm1')
      await sweeps(other, 3)
      expect((await journal.read('inbox', [recordId('m1')]))[0]!.record).toMatchObject({ state: 'processing', fencingToken: 1 })

      const restarted = await bots.start(storage, {
        durability: quick({ instanceId: 'pod-0', inbox: { leaseMs: 60_000 }, outbox: { leaseMs: 60_000 } }),
        setup: reply,
      })
      const done = await waitFor(
        async () => {
          const [found] = await journal.read('inbox', [recordId('m1')])
          return found!.record.state === 'done' ? found!.record : undefined
        },
        { timeoutMs: 30_000, intervalMs: 20, message: 'm1 done by the restarted pod-0' },
      )
      // Finished on the server's clock long before the dead run's 60 s lease would have expired.
      expect(done.fencingToken).toBe(2)
      expect(done.updatedAt).toBeLessThan(left.lease!.expiresAt)
      expect(restarted.provider.texts()).toEqual([`re ${recordId('m1')}`])
      expect(restarted.bot.durability!.metrics()).toMatchObject({ inboundReplayed: 1, staleLeases: 0 })
      expect(other.provider.sent).toEqual([])
      expect(other.bot.durability!.metrics().inboundReplayed).toBe(0)
      // The killed process never got to reply.
      expect(readReplicaLines(oracleFile).filter((line) => 'sent' in line)).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it.runIf(target.available)(
    'a replica whose clock is ten minutes ahead never steals a live lease; leases are written on the server’s clock',
    async () => {
      const storage = bots.storage(target)
      const { backend, journal } = await probe(storage, 'default/default/bot/default')
      const release = deferred()
      let runs = 0
      const setup = (bot: import('../../src/core/bot/bot.js').Bot) =>
        bot.when(TEXT, async (ctx) => {
          runs++
          await release.promise
          await ctx.reply('finally')
        })
      // Only behind's heartbeat keeps its lease: a lease of seconds gives the heartbeat's write room on
      // a busy host (it is renewed a third into the lease and must land before the end).
      const behind = await bots.start(storage, {
        durability: quick({ instanceId: 'behind', clock: () => Date.now() - TEN_MINUTES, inbox: { leaseMs: 3_000 } }),
        setup,
      })
      const ahead = await bots.start(storage, { durability: quick({ instanceId: 'ahead', clock: () => Date.now() + TEN_MINUTES }), setup })
      await behind.provider.receive({ id: 'm1', chatId: 'c1', text: 'hold on' })
      const first = (await journal.read('inbox', [recordId('m1')]))[0]!.record.lease!
      expect(Math.abs(first.acquiredAt - (await backend.now()))).toBeLessThan(60_000)
      // The first lease has run out on the server's clock: only the heartbeat keeps it.
      await waitFor(async () => (await backend.now()) > first.expiresAt + 200, { timeoutMs: 10_000, intervalMs: 50 })
      await sweeps(ahead, 3)
      expect((await journal.read('inbox', [recordId('m1')]))[0]!.record).toMatchObject({
        state: 'processing',
        fencingToken: 1,
        lease: { owner: 'behind' },
      })
      expect(runs).toBe(1)
      release.resolve()
      await waitFor(async () => (await journal.read('inbox', [recordId('m1')]))[0]!.record.state === 'done', { timeoutMs: 10_000 })
      expect(ahead.bot.durability!.metrics().inboundReplayed).toBe(0)
      expect(behind.bot.durability!.metrics().staleLeases + ahead.bot.durability!.metrics().staleLeases).toBe(0)
      expect(behind.provider.texts()).toEqual(['finally'])
    },
    TEST_TIMEOUT_MS,
  )

  for (const skew of [
    { name: 'ahead', ms: TEN_MINUTES },
    { name: 'behind', ms: -TEN_MINUTES },
  ]) {
    it.runIf(target.available)(
      `a replica whose clock is ten minutes ${skew.name} takes over a dead holder’s lease once it expired on the server, not before and not ten minutes late`,
      async () => {
        const storage = bots.storage(target)
        const { backend, journal } = await probe(storage, 'default/default/bot/default')
        const crashed = crashable(storage.open())
        const holder = await bots.start(storage, {
          backend: crashed,
          durability: quick({ instanceId: 'holder', inbox: { leaseMs: 2_000 } }),
          setup: (bot) =>
            bot.when(TEXT, async () => {
              crashed.crashNow()
              await never()
            }),
        })
        const taker = timedSyncs(storage.open())
        const skewed: SharedBot = await bots.start(storage, {
          backend: taker.backend,
          durability: quick({ instanceId: skew.name, clock: () => Date.now() + skew.ms, inbox: { leaseMs: 2_000 } }),
          setup: reply,
        })
        await holder.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
        await crashed.whenCrashed()
        bots.abandon(holder)
        const left = (await journal.read('inbox', [recordId('m1')]))[0]!.record
        expect(left.lease).toMatchObject({ owner: 'holder', token: 1 })

        const { done, early } = await watchTakeover(journal, backend, recordId('m1'), left.lease!.expiresAt, taker)
        expect(early).toEqual([])
        const [claim] = skewed.tap.written<InboxRecord>('inbox.claim')
        expect(claim!.lease!.acquiredAt).toBeGreaterThanOrEqual(left.lease!.expiresAt)
        // The claim is stamped with the server's time, not the replica's own.
        expect(Math.abs(claim!.lease!.acquiredAt - left.lease!.expiresAt)).toBeLessThan(60_000)
        expect(done).toMatchObject({ state: 'done', fencingToken: 2 })
        expect(skewed.provider.texts()).toEqual([`re ${recordId('m1')}`])
      },
      TEST_TIMEOUT_MS,
    )
  }
})
