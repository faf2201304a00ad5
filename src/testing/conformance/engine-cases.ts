/**
 * Conformance cases of the engine's use of a backend: leases and fencing, every state transition,
 * listing, retention, operator changes, and a bot running end to end. They drive the engine's own
 * modules, so a backend passes them only if its compare-and-set and indexes carry the engine.
 */
import assert from 'node:assert/strict'
import { Bot } from '../../core/bot/bot.js'
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'
import { resolveDurabilityConfig, type DurabilityOptions } from '../../core/durability/config.js'
import { DurabilityEngine } from '../../core/durability/engine.js'
import { admitInbound, claimInbound, completeInbound, deadLetterInbound } from '../../core/durability/admission/inbox.js'
import { attemptDelivery, claimOutbound, type Delivery } from '../../core/durability/outbox/outbox-attempt.js'
import { inboxRecordId } from '../../core/durability/outbox/keys.js'
import { discardSend, replayInbound, retrySend } from '../../core/durability/operations/operations.js'
import { ERROR_CODES } from '../../core/errors/errors.js'
import { ProviderError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import { TEXT } from '../../core/bot/matchers.js'
import { MockProvider } from '../mock-provider.js'
import type { ConformanceCase } from './case.js'
import { ManualClock } from '../manual-clock.js'
import { outboxRecord } from './fixtures.js'

const silent = { dead: () => {}, ambiguous: () => {}, warn: () => {}, error: () => {} }

/**
 * The lease of the cases' engines. The cases that depend on time judge it on a ManualClock, so a
 * lease never runs out while a busy host is slow to heartbeat it. Such a case never calls
 * `engine.clock.sync()`: a sync would measure the offset to the backend's clock again and undo the
 * case's `advance`. The lease is short because it also sets the period of the lease keeper's real
 * timer (a third of it), which a case waits for.
 */
const LEASE_MS = 80

function engineOn(backend: DurabilityBackend, scopeId: string, instanceId: string, options: DurabilityOptions = {}): DurabilityEngine {
  const config = resolveDurabilityConfig(
    {
      instanceId,
      inbox: { leaseMs: LEASE_MS, maxAttempts: 2, backoff: { baseMs: 1, capMs: 1, jitter: 0 } },
      outbox: { retries: 1, leaseMs: LEASE_MS, backoff: { baseMs: 1, capMs: 1, jitter: 0 } },
      ...options,
    },
    { tenantId: 't', environmentId: 'e', botId: 'b', connectionId: 'c' },
    backend,
  )
  return new DurabilityEngine(backend, config, scopeId, silent)
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const event = (id: string) => ({ id, chatId: 'chat-1', text: `hello ${id}` })
/** The inbox record id of `event(eventId)` admitted by the 'mock' provider. */
const recordIdOf = (eventId: string) => inboxRecordId('mock', 'chat-1', eventId)

export const ENGINE_CASES: ConformanceCase[] = [
  {
    name: 'engine: an expired lease is claimed under a new, larger token; the old holder completion is rejected and counted',
    async run({ backend, scopeId }) {
      const scope = scopeId()
      const clock = new ManualClock()
      const first = engineOn(backend, scope, 'replica-a', { clock: clock.now })
      const second = engineOn(backend, scope, 'replica-b', { clock: clock.now })
      const admitted = await admitInbound(first, event('m1'), event('m1'), 'mock')
      assert.ok('held' in admitted)
      assert.deepEqual(await second.journal.due('inbox', second.now(), 10), [], 'a live lease is not due')
      clock.advance(LEASE_MS)
      const due = await second.journal.due('inbox', second.now(), 10)
      assert.deepEqual(
        due.map((d) => d.record.id),
        [admitted.held.id],
        'an expired lease is due',
      )
      const taken = await claimInbound(second, due[0]!)
      assert.ok(taken, 'the second replica claims the expired record')
      assert.equal(taken.record.lease!.token, 2)
      assert.equal(taken.record.lease!.owner, 'replica-b')
      assert.equal(await completeInbound(first, admitted.held), false)
      assert.equal(first.metrics.snapshot().staleLeases, 1)
      assert.equal(await completeInbound(second, taken), true)
      const [done] = await first.journal.read('inbox', [recordIdOf('m1')])
      assert.equal(done!.record.state, 'done')
    },
  },
  {
    name: 'engine: a heartbeat keeps a live lease, so no other replica can claim it',
    async run({ backend, scopeId }) {
      const scope = scopeId()
      const clock = new ManualClock()
      const holder = engineOn(backend, scope, 'holder', { clock: clock.now })
      const other = engineOn(backend, scope, 'other', { clock: clock.now })
      const admitted = await admitInbound(holder, event('slow'), event('slow'), 'mock')
      assert.ok('held' in admitted)
      const held = admitted.held
      const firstExpiry = held.record.lease!.expiresAt
      holder.keeper.add(held)
      try {
        // Each step moves the clock past the point where the keeper renews (a third of the lease),
        // waits for its real timer to write the renewal, and asks the other replica what is due.
        // Five steps take the clock well past the lease the record was admitted with.
        for (let step = 0; step < 5; step++) {
          clock.advance(LEASE_MS / 2)
          await until('a heartbeat', async () => held.record.lease!.expiresAt === clock.now() + LEASE_MS)
          const due = await other.journal.due('inbox', other.now(), 10)
          assert.deepEqual(
            due.map((d) => d.record.id),
            [],
            'a heartbeated lease is not due',
          )
        }
        assert.ok(other.now() > firstExpiry, 'the clock is past the lease the record was admitted with')
        assert.equal(held.lost, false)
      } finally {
        holder.keeper.remove(held)
        await holder.keeper.stop()
      }
      assert.equal(await completeInbound(holder, held), true)
    },
  },
  {
    name: 'engine: inbox transitions — dead-lettered, replayed by an operator (due at its time), claimed with a run charged, done',
    async run({ backend, scopeId }) {
      const clock = new ManualClock()
      const engine = engineOn(backend, scopeId(), 'solo', { clock: clock.now })
      const admitted = await admitInbound(engine, event('m1'), event('m1'), 'mock')
      assert.ok('held' in admitted)
      await deadLetterInbound(engine, admitted.held, new Error('store down'))
      let [found] = await engine.journal.read('inbox', [recordIdOf('m1')])
      assert.equal(found!.record.state, 'dead')
      assert.equal(found!.record.lastError!.message, 'store down')
      assert.equal(engine.metrics.snapshot().inboundDead, 1)
      assert.deepEqual(
        (await engine.journal.list('inbox', { state: 'dead', limit: 10 })).map((d) => d.record.id),
        [recordIdOf('m1')],
      )
      await replayInbound(engine.journal, recordIdOf('m1'), { at: engine.now() + 1 })
      assert.deepEqual(await engine.journal.due('inbox', engine.now(), 10), [], 'not due before its time')
      clock.advance(1)
      const due = await engine.journal.due('inbox', engine.now(), 10)
      assert.deepEqual(
        due.map((d) => d.record.id),
        [admitted.held.id],
        'due once its time came',
      )
      const again = await claimInbound(engine, due[0]!)
      assert.ok(again)
      assert.equal(again.record.attempts, 1, 'a replay starts a fresh budget of runs, and the claim charges the first')
      assert.equal(await completeInbound(engine, again), true)
      ;[found] = await engine.journal.read('inbox', [recordIdOf('m1')])
      assert.equal(found!.record.state, 'done')
    },
  },
  {
    name: 'engine: a redelivered event finds its record instead of a second one',
    async run({ backend, scopeId }) {
      const engine = engineOn(backend, scopeId(), 'solo')
      await engine.clock.sync()
      const first = await admitInbound(engine, event('m1'), event('m1'), 'mock')
      const second = await admitInbound(engine, event('m1'), event('m1'), 'mock')
      assert.ok('held' in first)
      assert.ok('existing' in second && second.existing?.id === recordIdOf('m1'))
    },
  },
  {
    name: 'engine: outbox transitions — sent records the provider id; a transient error fails with a retry time; a final error is dead',
    async run({ backend, scopeId }) {
      const engine = engineOn(backend, scopeId(), 'solo')
      await engine.clock.sync()
      const provider = new MockProvider()
      const delivery: Delivery = {
        textLimit: undefined,
        send: (chatId, content) => provider.send(chatId, content),
        isStandby: () => false,
        afterSend: async () => {},
      }
      await engine.journal.write(
        'outbox.journal',
        ['ok', 'flaky', 'final'].map((key) => ({
          kind: 'outbox' as const,
          record: outboxRecord(key, { chatId: key, updatedAt: engine.now(), createdAt: engine.now() }),
          expectVersion: 0,
        })),
      )
      const outcome = async (key: string) => {
        const [found] = await engine.journal.read('outbox', [key])
        const held = await claimOutbound(engine, found!)
        assert.ok(held)
        return attemptDelivery(engine, delivery, held)
      }
      assert.equal((await outcome('ok')).outcome, 'sent')
      provider.failNext(1, new ProviderError(ERROR_CODES.TRANSIENT, 'try later'))
      assert.equal((await outcome('flaky')).outcome, 'failed')
      provider.failNext(1, new UnsupportedContentError())
      assert.equal((await outcome('final')).outcome, 'dead')
      const [ok, flaky, final] = await engine.journal.read('outbox', ['ok', 'flaky', 'final'])
      assert.equal(ok!.record.state, 'sent')
      assert.equal(ok!.record.providerMessageId, provider.sent[0]!.messageId)
      assert.equal(flaky!.record.state, 'failed')
      assert.ok(flaky!.record.nextAttemptAt! >= flaky!.record.updatedAt)
      assert.equal(final!.record.state, 'dead')
      assert.equal(final!.record.lastError!.code, ERROR_CODES.UNSUPPORTED_CONTENT)
    },
  },
  {
    name: 'engine: operator replay, retry and discard are compare-and-sets that keep who, when and why',
    async run({ backend, scopeId }) {
      const engine = engineOn(backend, scopeId(), 'solo')
      await engine.clock.sync()
      const admitted = await admitInbound(engine, event('m1'), event('m1'), 'mock')
      assert.ok('held' in admitted)
      await completeInbound(engine, admitted.held)
      await engine.journal.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('k1', { state: 'dead' }), expectVersion: 0 }])
      const replayed = await replayInbound(engine.journal, recordIdOf('m1'), { by: 'ops', reason: 'fixed the handler' })
      assert.equal(replayed.state, 'pending')
      assert.deepEqual(
        replayed.audit!.map((a) => [a.action, a.by, a.reason]),
        [['replay', 'ops', 'fixed the handler']],
      )
      const [retried] = await retrySend(engine.journal, 'k1', { by: 'ops' })
      assert.equal(retried!.state, 'pending')
      assert.equal((await engine.journal.due('outbox', engine.now() + 1_000, 10)).length, 1)
      await discardSend(engine.journal, 'k1')
      assert.deepEqual(await engine.journal.read('outbox', ['k1']), [undefined])
    },
  },
  {
    name: 'engine: a bot runs end to end — journals, replies once, recognises a redelivery',
    async run({ backend }) {
      const provider = new MockProvider()
      const bot = new Bot({
        provider,
        botId: `conformance${Math.floor(Math.random() * 1e9)}`,
        durability: { backend, instanceId: 'conformance-bot', pollMs: 20 },
      })
      bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
      await bot.start()
      try {
        await provider.receive({ id: 'w1', chatId: 'c', text: 'one' })
        await provider.receive({ id: 'w2', chatId: 'c', text: 'two' })
        await bot.idle()
        await provider.receive({ id: 'w1', chatId: 'c', text: 'one' })
        await bot.idle()
        assert.deepEqual(provider.texts(), ['echo: one', 'echo: two'])
        const metrics = bot.durability!.metrics()
        assert.equal(metrics.inboundJournaled, 2)
        assert.equal(metrics.inboundDuplicates, 1)
        assert.equal(metrics.outboxJournaled, 2)
        assert.equal((await bot.durability!.inbox.list({ state: 'done' })).length, 2)
        assert.equal((await bot.durability!.outbox.list({ state: 'sent' })).length, 2)
      } finally {
        await bot.stop()
      }
    },
  },
]
