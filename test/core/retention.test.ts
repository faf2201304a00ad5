/**
 * Retention keeps pace: a backlog larger than one batch is purged by the loop on its own, pass
 * after pass, each backend call bounded by a batch; a bot's retention judges age by its clock.
 * Time is a ManualClock: what is expired is chosen, never waited for.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { DurabilityBackend, Journal } from '../../src/core/durability/journal/backend.js'
import { resolveDurabilityConfig } from '../../src/core/durability/config.js'
import { DurabilityEngine } from '../../src/core/durability/engine.js'
import { LIMITS } from '../../src/core/durability/limits.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MemoryDurability } from '../../src/core/durability/memory/memory-durability.js'
import { purgeBacklog, Retention } from '../../src/core/durability/retention/retention.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { ManualClock } from '../../src/testing/manual-clock.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots } from './helpers.js'

const RETENTION_MS = 60_000
/** Two and a half batches of each lane: more than one pass can purge. */
const EXPIRED = (LIMITS.purgeBatchMax * 5) / 2

/** Every purge call a journal receives: its limit and how many it deleted. */
function purgeCalls(backend: DurabilityBackend): { backend: DurabilityBackend; calls: { limit: number; purged: number }[] } {
  const calls: { limit: number; purged: number }[] = []
  const watched: DurabilityBackend = {
    kind: backend.kind,
    shared: backend.shared,
    scoped: backend.scoped,
    start: () => backend.start(),
    stop: () => backend.stop(),
    now: () => backend.now(),
    scopes: () => backend.scopes(),
    journal(scopeId: string): Journal {
      const inner = backend.journal(scopeId)
      return {
        ...inner,
        scopeId,
        read: (kind, ids) => inner.read(kind, ids),
        write: (name, writes) => inner.write(name, writes),
        due: (kind, until, limit) => inner.due(kind, until, limit),
        list: (kind, query) => inner.list(kind, query),
        count: (kind) => inner.count(kind),
        countOlder: (kind, state, olderThan, limit) => inner.countOlder(kind, state, olderThan, limit),
        purge: async (kind, state, olderThan, limit) => {
          const purged = await inner.purge(kind, state, olderThan, limit)
          calls.push({ limit, purged })
          return purged
        },
      }
    },
  }
  return { backend: watched, calls }
}

describe('the retention loop', () => {
  const stops: (() => Promise<void>)[] = []
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()))
  })

  it('purges a backlog of several batches by itself, a bounded batch a call, and keeps what is not expired', async () => {
    const clock = new ManualClock()
    const { backend, calls } = purgeCalls(new MemoryDurability())
    const config = resolveDurabilityConfig(
      { instanceId: 'r', retention: RETENTION_MS, clock: clock.now },
      { tenantId: 't', environmentId: 'e', botId: 'b', connectionId: 'c' },
      backend,
    )
    const errors: unknown[] = []
    const ignore = () => {}
    const engine = new DurabilityEngine(backend, config, 'scope', { dead: ignore, ambiguous: ignore, warn: ignore, error: ignore })
    const settled = clock.now() - RETENTION_MS - 1
    await engine.journal.write('outbox.journal', [
      ...Array.from({ length: EXPIRED }, (_, n) => ({
        kind: 'inbox' as const,
        record: inboxRecord(`in-${n}`, { state: 'done', updatedAt: settled - n }),
        expectVersion: 0,
      })),
      ...Array.from({ length: EXPIRED }, (_, n) => ({
        kind: 'outbox' as const,
        record: outboxRecord(`out-${n}`, { state: 'sent', updatedAt: settled - n }),
        expectVersion: 0,
      })),
      { kind: 'inbox', record: inboxRecord('in-recent', { state: 'done', updatedAt: clock.now() }), expectVersion: 0 },
      { kind: 'outbox', record: outboxRecord('out-dead', { state: 'dead', updatedAt: 1 }), expectVersion: 0 },
    ])
    const retention = new Retention(engine, (error) => errors.push(error))
    stops.push(() => retention.stop())
    await retention.start()
    const cut = clock.now() - RETENTION_MS
    await waitFor(async () => (await purgeBacklog(engine.journal, cut)).total === 0, { timeoutMs: 30_000, message: 'the backlog purged' })
    await retention.stop()
    expect(errors).toEqual([])
    expect(calls.every(({ limit, purged }) => limit === LIMITS.purgeBatchMax && purged <= limit)).toBe(true)
    expect(calls.filter(({ purged }) => purged > 0).length).toBe(2 * Math.ceil(EXPIRED / LIMITS.purgeBatchMax))
    expect(await engine.journal.count('inbox')).toEqual({ done: 1 })
    expect(await engine.journal.count('outbox')).toEqual({ dead: 1 })
  })
})

describe("a bot's retention", () => {
  const bots = useBots()

  it('purges what its messages left once its clock is past the retention, and nothing before', async () => {
    const clock = new ManualClock()
    const t = await bots.start({
      // The backend's clock is the one the engine follows: it moves with the test's clock.
      durability: fast({ backend: new MemoryDurability({ now: clock.now }), retention: RETENTION_MS, clock: clock.now }),
      setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`)),
    })
    for (const id of ['m1', 'm2', 'm3']) await t.provider.receive({ id, chatId: 'c1', text: id })
    await t.bot.idle()
    const d = t.bot.durability!
    expect(await d.inbox.list({ state: 'done' })).toHaveLength(3)
    // Passes run (every second once caught up) and find nothing: the records are not yet a retention old.
    const passes = t.tap!.count('purge')
    await waitFor(() => t.tap!.count('purge') >= passes + 2, { timeoutMs: 10_000, message: 'a retention pass' })
    expect(await d.inbox.get(recordId('m1'))).toMatchObject({ state: 'done' })
    clock.advance(RETENTION_MS + 1)
    await waitFor(async () => (await d.inbox.list()).length === 0 && (await d.outbox.list()).length === 0, {
      timeoutMs: 10_000,
      message: 'done and sent records purged',
    })
    expect(t.errors).toEqual([])
  })
})
