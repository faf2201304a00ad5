/**
 * The LeasedEventJournal verbs on both journals (append, list, claim with fencing tokens,
 * heartbeat, complete, fail, replay, purge), EventWorker and its channel rule, and eventsDurability
 * with a running bot: the inbox records in the journal, a replay picked up by the sweeper, the
 * bot's retention limited to its own records, an unlocked FileEventJournal refused.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { EventWorker, FileEventJournal, SharedFileEventJournal, type EventRecord, type LeasedEventJournal } from '../../src/events/index.js'
import { DURABLE_CHANNEL, eventsDurability, INBOUND_EVENT_TYPES } from '../../src/backends/events/durability.js'
import { Bot } from '../../src/core/bot/bot.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { JournalLockedError, LeaseLostError } from '../../src/core/errors/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { removeDirs, tempDir } from './events-kit.js'

afterAll(removeDirs)

const journals: [string, (path: string) => Promise<LeasedEventJournal>][] = [
  ['FileEventJournal', (path) => FileEventJournal.open(path, { lock: true })],
  ['SharedFileEventJournal', (path) => SharedFileEventJournal.open(path)],
  ['SharedFileEventJournal (appendLog)', (path) => SharedFileEventJournal.open(path, { appendLog: { compactEvery: 5 } })],
]

for (const [name, open] of journals) {
  describe(name, () => {
    const fresh = () => open(join(tempDir(), 'events.json'))

    it('appends in order, keeps ids unique, and lists by channel, type and state', async () => {
      const journal = await fresh()
      try {
        const [a, b] = await journal.append([
          { id: 'a', eventType: 'order.created', payload: { total: 5 } },
          { id: 'b', channel: 'mail', eventType: 'mail.send' },
        ])
        assert.equal(a!.appended, true)
        assert.equal(b!.record.channel, 'mail')
        const again = await journal.append({ id: 'a', eventType: 'other' })
        assert.equal(again.appended, false)
        assert.equal(again.record.eventType, 'order.created')
        const generated = await journal.append({ eventType: 'order.created' })
        assert.ok(generated.record.seq > b!.record.seq)
        assert.deepEqual(
          (await journal.list()).map((r) => r.id),
          ['a', 'b', generated.record.id],
        )
        assert.deepEqual(
          (await journal.list({ channel: null })).map((r) => r.id),
          ['a', generated.record.id],
        )
        assert.deepEqual(
          (await journal.list({ channel: 'mail' })).map((r) => r.id),
          ['b'],
        )
        assert.deepEqual(
          (await journal.list({ eventType: 'order.created', limit: 1 })).map((r) => r.id),
          ['a'],
        )
        assert.deepEqual(
          (await journal.list({ afterSeq: a!.record.seq })).map((r) => r.id),
          ['b', generated.record.id],
        )
        assert.deepEqual(await journal.count(), { pending: 3 })
        assert.deepEqual((await journal.get('a'))?.payload, { total: 5 })
        assert.deepEqual(await journal.get(['zzz', 'b']).then((found) => found.map((r) => r?.id)), [undefined, 'b'])
        await assert.rejects(journal.append({ eventType: 'x', channel: DURABLE_CHANNEL }), /belong to the bot/)
      } finally {
        await journal.close()
      }
    })

    it('claims under growing fencing tokens; a stale token cannot complete; heartbeats keep a lease', async () => {
      const journal = await fresh()
      try {
        await journal.append([{ id: 'job', eventType: 'job' }])
        const [first] = await journal.claim({ owner: 'w1', leaseMs: 60_000 })
        assert.equal(first!.lease!.token, 1)
        assert.deepEqual(await journal.claim({ owner: 'w2', leaseMs: 40 }), [], 'a live lease is not claimed again')
        // A heartbeat sets the lease to leaseMs from now: here, shorter, so that it runs out soon.
        assert.deepEqual(await journal.heartbeat([{ id: 'job', token: 1 }], 40), [true])
        const second = await waitFor(async () => (await journal.claim({ owner: 'w2', leaseMs: 10_000 }))[0], {
          message: 'the lease to expire',
        })
        assert.equal(second.lease!.token, 2)
        assert.equal(second.attempts, 2)
        await assert.rejects(
          journal.complete({ id: 'job', token: 1 }),
          (error: unknown) => error instanceof LeaseLostError && error.code === 'LEASE_LOST',
        )
        assert.deepEqual(await journal.heartbeat([{ id: 'job', token: 1 }], 40), [false])
        const done = await journal.complete({ id: 'job', token: 2 })
        assert.equal(done.state, 'done')
        assert.equal((await journal.get('job'))!.fencingToken, 2)
        await assert.rejects(journal.fail({ id: 'job', token: 2 }, new Error('late')), LeaseLostError)
      } finally {
        await journal.close()
      }
    })

    it('fails with a retry time or to dead, dead-letters at maxAttempts, replays and purges', async () => {
      const journal = await fresh()
      try {
        await journal.append([
          { id: 'x', eventType: 'job' },
          { id: 'y', eventType: 'job' },
        ])
        const claimed = await journal.claim({ owner: 'w', leaseMs: 10_000, limit: 2 })
        const failed = await journal.fail(
          { id: 'x', token: claimed[0]!.lease!.token },
          Object.assign(new Error('busy'), { code: 'BUSY' }),
          { retryAt: Date.now() + 60_000 },
        )
        assert.equal(failed.state, 'failed')
        assert.deepEqual({ message: failed.lastError!.message, code: failed.lastError!.code }, { message: 'busy', code: 'BUSY' })
        await journal.fail({ id: 'y', token: claimed[1]!.lease!.token }, 'gone', { dead: true })
        assert.deepEqual(await journal.claim({ owner: 'w', leaseMs: 10_000 }), [], 'a failed record waits for its retry time')
        const replayed = await journal.replay({ states: ['dead'] })
        assert.deepEqual(
          replayed.map((r) => [r.id, r.state, r.attempts]),
          [['y', 'pending', 0]],
        )
        assert.deepEqual(
          (await journal.replay('x')).map((r) => r.id),
          ['x'],
        )
        assert.deepEqual(
          (await journal.replay(['x'])).map((r) => r.id),
          [],
          'a pending record is not replayed',
        )
        const both = await journal.claim({ owner: 'w', leaseMs: 1, limit: 2 })
        assert.deepEqual(both.map((r) => r.id).sort(), ['x', 'y'])
        const y = both.find((r) => r.id === 'y')!
        await journal.complete({ id: 'y', token: y.lease!.token })
        // x's lease of 1 ms runs out: it had its one run, so the next claim dead-letters it.
        await waitFor(async () => (await journal.get('x'))!.lease!.expiresAt < Date.now())
        assert.deepEqual(await journal.claim({ owner: 'w', leaseMs: 1_000, maxAttempts: 1 }), [])
        const dead = (await journal.get('x'))!
        assert.equal(dead.state, 'dead')
        assert.equal(dead.lastError!.message, 'busy', 'the last error is kept')
        assert.equal(await journal.purge({ olderThan: Date.now() + 1 }), 1)
        assert.deepEqual(
          (await journal.list()).map((r) => r.id),
          ['x'],
        )
      } finally {
        await journal.close()
      }
    })

    it('an EventWorker takes only its channel: without one, only records without a channel', async () => {
      const journal = await fresh()
      const backend = eventsDurability({ journal })
      const ran: string[] = []
      const plain = new EventWorker(journal, { handler: (record) => void ran.push(`plain:${record.id}`), pollMs: 5, leaseMs: 5_000 })
      const mail = new EventWorker(journal, {
        channel: 'mail',
        handler: (record) => void ran.push(`mail:${record.id}`),
        pollMs: 5,
        leaseMs: 5_000,
      })
      try {
        // A bot's inbound record on 'botwa:durable', as eventsDurability writes it.
        await backend
          .journal('bot-scope')
          .write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('wamid.1', { state: 'pending' }), expectVersion: 0 }])
        await journal.append([
          { id: 'p1', eventType: 'job' },
          { id: 'm1', channel: 'mail', eventType: 'mail.send' },
          { id: 's1', channel: 'sms', eventType: 'sms.send' },
        ])
        plain.start()
        mail.start()
        await waitFor(
          async () => (await journal.count({ channel: null })).done === 1 && (await journal.count({ channel: 'mail' })).done === 1,
        )
        await plain.stop()
        await mail.stop()
        assert.deepEqual(ran.sort(), ['mail:m1', 'plain:p1'])
        assert.equal((await journal.get('s1'))!.state, 'pending', 'nobody asked for sms')
        const [bots] = await journal.list({ channel: DURABLE_CHANNEL }).then((records) => [records.map((r) => [r.eventType, r.state])])
        assert.deepEqual(bots, [[INBOUND_EVENT_TYPES.message, 'pending']], 'the bot record was never claimed')
        assert.deepEqual(plain.stats, { claimed: 1, completed: 1, failed: 0, dead: 0, staleLeases: 0 })
      } finally {
        await plain.stop()
        await mail.stop()
        await journal.close()
      }
    })

    it('an EventWorker retries a failing handler with backoff and dead-letters it after maxAttempts', async () => {
      const journal = await fresh()
      const errors: unknown[] = []
      const worker = new EventWorker(journal, {
        handler: () => {
          throw new Error('always')
        },
        pollMs: 5,
        maxAttempts: 3,
        backoff: { baseMs: 1, capMs: 2 },
        onError: (error) => errors.push(error),
      })
      try {
        await journal.append({ id: 'bad', eventType: 'job' })
        worker.start()
        await waitFor(async () => (await journal.get('bad'))!.state === 'dead')
        assert.deepEqual({ failed: worker.stats.failed, dead: worker.stats.dead }, { failed: 2, dead: 1 })
        assert.equal((await journal.get('bad'))!.attempts, 3)
        assert.equal(errors.length, 3)
      } finally {
        await worker.stop()
        await journal.close()
      }
    })

    it("runs a bot: inbound records are the journal's, a replay is picked up by the sweeper, retention spares the app's events", async () => {
      const journal = await fresh()
      const provider = new MockProvider()
      const handled: string[] = []
      const bot = new Bot({
        provider,
        store: new MemoryStore(),
        durability: { backend: eventsDurability({ journal }), instanceId: 'bot-1', pollMs: 10 },
      })
      bot.when(TEXT, async (ctx) => {
        handled.push(ctx.message.text!)
        await ctx.reply(`echo: ${ctx.message.text}`)
      })
      try {
        await journal.append({ id: 'app-1', eventType: 'order.created' })
        await bot.start()
        await provider.receive({ id: 'wamid.1', chatId: 'c1', text: 'hi' })
        await provider.receive({ id: 'wamid.2', chatId: 'c1', text: 'there', interaction: { id: 'yes' } } as never)
        await bot.idle()
        const inbound = await journal.list({ channel: DURABLE_CHANNEL })
        assert.deepEqual(
          inbound.map((r) => [r.eventType, r.state, r.scope]),
          [
            [INBOUND_EVENT_TYPES.message, 'done', bot.scope],
            [INBOUND_EVENT_TYPES.interaction, 'done', bot.scope],
          ],
        )
        assert.deepEqual(
          (await journal.list({ channel: null })).map((r) => r.id),
          ['app-1'],
          'the app keeps its own events apart',
        )
        assert.deepEqual(handled, ['hi'], 'an interaction is no TEXT')
        const replayed = await journal.replay({ channel: DURABLE_CHANNEL, scope: bot.scope, limit: 1 })
        assert.deepEqual(
          replayed.map((r) => r.state),
          ['pending'],
        )
        await waitFor(() => handled.length === 2, { message: 'the sweeper to run the replayed record' })
        assert.equal(handled[1], 'hi')
        await bot.idle()
        assert.equal((await journal.get(replayed[0]!.id))!.state, 'done')
        assert.deepEqual(
          provider.sent.map((s) => s.content),
          ['echo: hi'],
          'the replay is answered from the outbox',
        )
        // The bot's retention purges its own done records only.
        const app = await journal.claim({ owner: 'w', leaseMs: 1_000 })
        await journal.complete({ id: 'app-1', token: app[0]!.lease!.token })
        const scoped = eventsDurability({ journal }).journal(bot.scope)
        assert.equal(await scoped.purge('inbox', 'done', Date.now() + 1, 100), 2)
        assert.deepEqual(
          (await journal.list()).map((r) => r.id),
          ['app-1'],
        )
      } finally {
        await bot.stop()
        await journal.close()
      }
    })
  })
}

describe('eventsDurability', () => {
  it('refuses a FileEventJournal opened without { lock: true }, naming the fix', async () => {
    const journal = await FileEventJournal.open(join(tempDir(), 'events.json'))
    try {
      assert.throws(
        () => eventsDurability({ journal }),
        (error: unknown) => {
          const message = (error as Error).message
          return (
            (error as { code?: string }).code === 'CONFIG_INVALID' && message.includes('{ lock: true }') && message.includes(journal.path)
          )
        },
      )
    } finally {
      await journal.close()
    }
  })

  it("is shared only over a SharedFileEventJournal, and lists the bots' scopes", async () => {
    const dir = tempDir()
    const locked = await FileEventJournal.open(join(dir, 'a.json'), { lock: true })
    const shared = await SharedFileEventJournal.open(join(dir, 'b.json'))
    try {
      assert.equal(eventsDurability({ journal: locked }).shared, false)
      const backend = eventsDurability({ journal: shared })
      assert.equal(backend.shared, true)
      await backend.journal('s1').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m'), expectVersion: 0 }])
      await backend
        .journal('s2')
        .write('outbox.journal', [{ kind: 'outbox', record: { ...inboxRecord('k'), key: 'k' } as never, expectVersion: 0 }])
      assert.deepEqual(await backend.scopes(), ['s1', 's2'])
      const [event] = (await shared.list({ channel: DURABLE_CHANNEL })) as [EventRecord]
      assert.deepEqual(event.payload, {
        inboxId: 'm',
        chatId: 'chat-1',
        provider: 'mock',
        event: { id: 'm', chatId: 'chat-1', text: 'text of m' },
      })
    } finally {
      await locked.close()
      await shared.close()
    }
  })
})

describe('opening from a path (what the CLI calls)', () => {
  it('events: opens a locked journal, read-only naming a live holder, or read-only for a read; events+shared: a shared one', async () => {
    const { openEventsBackend, eventsThrowawayFactory } = await import('../../src/backends/events/open.js')
    const path = join(tempDir(), 'events.json')
    const writer = await openEventsBackend(path, { shared: false, access: 'write' })
    assert.equal(writer.journal.writers, 'locked')
    await writer.backend.start()
    await writer.backend.journal('s').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
    const reader = await openEventsBackend(path, { shared: false, access: 'read' })
    assert.equal(reader.readOnly, true)
    assert.equal((await reader.backend.journal('s').read('inbox', ['m1']))[0]?.record.id, 'm1')
    await assert.rejects(
      reader.backend.journal('s').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m2'), expectVersion: 0 }]),
      (error: unknown) => error instanceof JournalLockedError,
    )
    await reader.close()
    await writer.backend.stop()
    await writer.close()
    const shared = await openEventsBackend(path, { shared: true, access: 'write' })
    assert.equal(shared.backend.shared, true)
    await shared.close()
    const factory = eventsThrowawayFactory({ shared: true, parent: tempDir() })
    const throwaway = await factory.create()
    const again = await factory.restart(throwaway)
    await factory.cleanup(again)
  })
})
