/**
 * Chat turns (`durability.coordination`) between replicas in one process: three bots with their own
 * instanceIds share one backend and one scope, and every chat's messages are spread over all of them
 * (round robin). An oracle logs each handler's start and end per chat: never two at once, in
 * arrival order, every reply once. Also: a holder that stops renewing loses the turn by lease, and
 * its late release is refused and counted in staleLeases; the round trips the turns cost per message.
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
import type { Bot } from '../../src/core/bot/bot.js'
import { ChatTurns } from '../../src/core/durability/turns/chat-turns.js'
import { resolveDurabilityConfig } from '../../src/core/durability/config.js'
import { DurabilityEngine } from '../../src/core/durability/engine.js'
import { HeldRecord } from '../../src/core/durability/leases/held-record.js'
import { completeInbound } from '../../src/core/durability/admission/inbox.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots, type TestBot } from '../core/helpers.js'

const bots = useBots()
const CHATS = 6
const PER_CHAT = 6

/** Start and end of every handler run, per chat, in the order they happened. */
type Mark = { chatId: string; id: string; bot: string; at: 'start' | 'end' }

/** The backend object of replica n: one shared object, or one per replica over the same file (as separate processes would open it). */
type BackendOf = (n: number) => DurabilityBackend | Promise<DurabilityBackend>

/** Leases and polling generous enough that a loaded machine never lets a lease lapse mid-handler. */
const ON_FILES = { pollMs: 100, inbox: { leaseMs: 5_000 }, outbox: { leaseMs: 5_000 } }

async function replicas(shared: MemoryDurability | BackendOf, marks: Mark[], coordination: boolean, count = 3): Promise<TestBot[]> {
  const backendOf: BackendOf = typeof shared === 'function' ? shared : () => shared
  const setup = (name: string) => (bot: Bot) =>
    bot.when(TEXT, async (ctx) => {
      marks.push({ chatId: ctx.chatId, id: ctx.message.id, bot: name, at: 'start' })
      // Long enough for a message delivered to another replica meanwhile to find the turn taken.
      await new Promise((resolve) => setTimeout(resolve, 5 + (Number(ctx.message.id.split('.')[1]) % 3) * 5))
      await ctx.reply(`re ${ctx.message.id}`)
      marks.push({ chatId: ctx.chatId, id: ctx.message.id, bot: name, at: 'end' })
    })
  return Promise.all(
    Array.from({ length: count }, async (_, n) =>
      bots.start({
        botId: 'turns',
        durability: fast({
          ...ON_FILES,
          backend: await backendOf(n),
          instanceId: `r${n}`,
          ...(coordination ? { coordination: true } : {}),
        }),
        setup: setup(`r${n}`),
      }),
    ),
  )
}

/** Handler runs of one chat that overlapped another of the same chat. */
function overlaps(marks: Mark[]): string[] {
  const running = new Map<string, string>()
  const found: string[] = []
  for (const mark of marks) {
    if (mark.at === 'start') {
      const other = running.get(mark.chatId)
      if (other) found.push(`${mark.id} started while ${other} ran`)
      running.set(mark.chatId, mark.id)
    } else running.delete(mark.chatId)
  }
  return found
}

/** Delivers every chat's messages at once, message m of chat c to replica (c + m) % replicas. */
async function spread(replicas: TestBot[]): Promise<void> {
  const deliveries: Promise<void>[] = []
  for (let m = 1; m <= PER_CHAT; m++) {
    for (let c = 0; c < CHATS; c++)
      deliveries.push(replicas[(c + m) % replicas.length]!.provider.receive({ id: `c${c}.${m}`, chatId: `c${c}`, text: `m ${m}` }))
  }
  await Promise.all(deliveries)
}

describe('chat turns across replicas', () => {
  it('run one handler of a chat at a time, in arrival order, wherever its messages land; every reply once', async () => {
    const marks: Mark[] = []
    const group = await replicas(new MemoryDurability(), marks, true)
    await spread(group)
    await waitFor(() => marks.filter((m) => m.at === 'end').length === CHATS * PER_CHAT, {
      timeoutMs: 30_000,
      message: 'every handler ran',
    })

    expect(overlaps(marks)).toEqual([])
    for (let c = 0; c < CHATS; c++) {
      const order = marks.filter((m) => m.chatId === `c${c}` && m.at === 'start').map((m) => m.id)
      expect(order).toEqual(Array.from({ length: PER_CHAT }, (_, m) => `c${c}.${m + 1}`))
    }
    const replies = group.flatMap((t) => t.provider.texts())
    expect(replies.length).toBe(CHATS * PER_CHAT)
    expect(new Set(replies).size).toBe(CHATS * PER_CHAT)
    // Every replica ran handlers: the chats really were spread.
    expect(new Set(marks.map((m) => m.bot)).size).toBe(3)
  })

  const dirs: string[] = []
  /** Opened here, closed once every bot over them stopped (useBots stops them after each test). */
  const journals: SharedFileEventJournal[] = []
  afterAll(async () => {
    await Promise.all(journals.splice(0).map((journal) => journal.close()))
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  const tempFile = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'botmesh-turns-'))
    dirs.push(dir)
    return join(dir, name)
  }
  const onOneHost: [string, () => BackendOf][] = [
    [
      'SQLite (one store object per replica over one file)',
      () => {
        const file = tempFile('bot.db')
        return () => new SQLiteStore({ file }).durability()
      },
    ],
    [
      'a SharedFileEventJournal (one journal object per replica over one file)',
      () => {
        const file = tempFile('events.json')
        return async () => {
          const journal = await SharedFileEventJournal.open(file)
          journals.push(journal)
          return eventsDurability({ journal })
        }
      },
    ],
  ]
  it.each(onOneHost)(
    'serialize each chat the same way on %s',
    async (_name, backends) => {
      const marks: Mark[] = []
      const group = await replicas(backends(), marks, true)
      await spread(group)
      await waitFor(() => marks.filter((m) => m.at === 'end').length === CHATS * PER_CHAT, {
        timeoutMs: 60_000,
        message: 'every handler ran',
      })
      expect(overlaps(marks)).toEqual([])
      const replies = group.flatMap((t) => t.provider.texts())
      expect(replies.length).toBe(CHATS * PER_CHAT)
      expect(new Set(replies).size).toBe(CHATS * PER_CHAT)
      expect(group.reduce((sum, t) => sum + t.bot.durability!.metrics().staleLeases, 0)).toBe(0)
    },
    90_000,
  )

  it('without coordination the same spread overlaps (the oracle can fail)', async () => {
    const marks: Mark[] = []
    const group = await replicas(new MemoryDurability(), marks, false)
    await spread(group)
    await waitFor(() => marks.filter((m) => m.at === 'end').length === CHATS * PER_CHAT, {
      timeoutMs: 30_000,
      message: 'every handler ran',
    })
    expect(overlaps(marks).length).toBeGreaterThan(0)
  })

  it('cost a few journal round trips per message (measured against the same run without coordination)', async () => {
    const calls = async (coordination: boolean) => {
      const group = await replicas(new MemoryDurability(), [], coordination, 1)
      const t = group[0]!
      // A user who waits for the answer before writing again.
      for (let m = 1; m <= 20; m++) {
        await t.provider.receive({ id: `s.${m}`, chatId: 's', text: `m ${m}` })
        await waitFor(() => t.provider.texts().length === m, { timeoutMs: 10_000, message: `the answer to message ${m}` })
      }
      await t.bot.idle()
      let total = 0
      for (const [op, count] of t.tap!.counts) if (['read', 'write'].includes(op.split(':')[0]!)) total += count
      return { total, turns: [...t.tap!.writes].filter((w) => typeof w.name === 'string' && w.name.startsWith('turn.')).length }
    }
    const plain = await calls(false)
    const coordinated = await calls(true)
    const extraPerMessage = (coordinated.total - plain.total) / 20
    console.log(
      `chat turns, one replica, 20 messages of one chat: ${plain.total} journal reads+writes without coordination, ${coordinated.total} with (${extraPerMessage} extra per message; ${coordinated.turns} turn writes)`,
    )
    expect(extraPerMessage).toBeGreaterThan(0)
    expect(extraPerMessage).toBeLessThanOrEqual(4)
  })

  it('pass a turn on once its holder stops renewing; the late release is refused and counted in staleLeases', async () => {
    const backend = new MemoryDurability()
    await backend.start()
    const engine = (instanceId: string) => {
      const config = resolveDurabilityConfig(
        { backend, instanceId, coordination: { turnLeaseMs: 60 } },
        { tenantId: 't', environmentId: 'e', botId: 'b', connectionId: 'c' },
        backend,
      )
      return new DurabilityEngine(backend, config, 'scope', { dead() {}, ambiguous() {}, warn() {}, error() {} })
    }
    const [a, b] = [engine('a'), engine('b')]
    await Promise.all([a.clock.sync(), b.clock.sync()])
    const message = (n: number, e: DurabilityEngine): HeldRecord<'inbox'> => {
      const record: InboxRecord = {
        id: recordId(`m${n}`, 'c'),
        kind: 'message',
        state: 'processing',
        chatId: 'c',
        provider: 'mock',
        event: {},
        attempts: 1,
        nextAttemptAt: null,
        lease: null,
        fencingToken: 1,
        lastError: null,
        createdAt: n,
        updatedAt: n,
      }
      return new HeldRecord(e.journal, 'inbox', record, 1)
    }
    await a.journal.write(
      'inbox.admit',
      [1, 2].map((n) => ({ kind: 'inbox', record: message(n, a).record, expectVersion: 0 }) as const),
    )
    const turnsA = new ChatTurns(a, 60)
    const turnsB = new ChatTurns(b, 60)
    const first = await turnsA.take(message(1, a))
    // a "freezes": its renewal stops, so b's message waits only until a's lease is over.
    await turnsA.stop()
    const m2 = message(2, b)
    const second = turnsB.take(m2)
    let taken = false
    void second.then(() => (taken = true))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(taken).toBe(false)
    // m1 is still processing (its own lease is a's), so m2 waits behind it until m1 is settled.
    const [m1] = await a.journal.read('inbox', [recordId('m1', 'c')])
    await a.journal.write('inbox.complete', [{ kind: 'inbox', record: { ...m1!.record, state: 'done' }, expectVersion: m1!.version }])
    const turn = await second
    expect(turn?.token).toBe(first!.token + 1)
    await turnsA.release(first!)
    expect(a.metrics.snapshot().staleLeases).toBe(1)
    // Settled, m2 leaves the queue with its release (an unsettled one would stay at its head).
    expect(await completeInbound(b, m2)).toBe(true)
    await turnsB.release(turn!)
    expect(b.metrics.snapshot().staleLeases).toBe(0)
    expect((await b.journal.read('turns', ['c']))[0]).toBeUndefined()
    await Promise.all([turnsB.stop(), backend.stop()])
  })
})

describe('the coordination option', () => {
  const namespace = { tenantId: 't', environmentId: 'e', botId: 'b', connectionId: 'c' }
  it('takes true (turns leased like the inbox, the session for 10 s) or { turnLeaseMs, sessionLeaseMs }; off by default', () => {
    const backend = new MemoryDurability()
    expect(resolveDurabilityConfig({}, namespace, backend)).toMatchObject({ coordination: null, providerSession: 'any' })
    expect(resolveDurabilityConfig({ coordination: true, inbox: { leaseMs: '30s' } }, namespace, backend)).toMatchObject({
      coordination: { turnLeaseMs: 30_000 },
      sessionLeaseMs: 10_000,
    })
    expect(
      resolveDurabilityConfig({ coordination: { turnLeaseMs: '2s', sessionLeaseMs: 500 }, providerSession: 'leader' }, namespace, backend),
    ).toMatchObject({ coordination: { turnLeaseMs: 2_000 }, sessionLeaseMs: 500, providerSession: 'leader' })
    expect(() => resolveDurabilityConfig({ coordination: { turnLeaseMs: 5 } }, namespace, backend)).toThrow(
      /turnLeaseMs must be at least 20 ms/,
    )
  })
})

describe('stopping a coordinated replica', () => {
  it('does not wait for a chat turn another replica holds: the waiting message is left to its lease', async () => {
    const shared = new MemoryDurability()
    let open = () => {}
    const gate = new Promise<void>((resolve) => (open = resolve))
    const slow = (bot: Bot) => bot.when(TEXT, async () => gate)
    const [holder, waiter] = await Promise.all(
      ['h', 'w'].map((id) =>
        bots.start({
          botId: 'stop',
          durability: fast({ backend: shared, instanceId: id, coordination: { turnLeaseMs: '60s' } }),
          setup: slow,
        }),
      ),
    )
    await holder!.provider.receive({ id: 'm1', chatId: 'c', text: 'first' })
    const journal = shared.journal(holder!.bot.durability!.scope)
    await waitFor(async () => (await journal.read('turns', ['c']))[0]?.record.holder?.owner === 'h', {
      timeoutMs: 5_000,
      message: 'h holds the turn',
    })
    await waiter!.provider.receive({ id: 'm2', chatId: 'c', text: 'second' })
    await waitFor(async () => (await journal.read('turns', ['c']))[0]?.record.queue.length === 2, {
      timeoutMs: 5_000,
      message: 'm2 queued',
    })
    const stopped = waiter!.bot.stop().then(() => 'stopped')
    const timeout = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000).unref())
    expect(await Promise.race([stopped, timeout])).toBe('stopped')
    bots.abandon(waiter!)
    open()
  })
})
