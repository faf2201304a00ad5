/**
 * Conformance cases of the journal's indexes: what is due, a state's records in time order, counts
 * per state, purging, heartbeats, and scopes that keep all of them apart.
 */
import assert from 'node:assert/strict'
import type { ConformanceCase } from './case.js'
import { inboxRecord, outboxRecord } from './fixtures.js'

export const JOURNAL_INDEX_CASES: ConformanceCase[] = [
  {
    name: 'the due index lists what is due, soonest first, and nothing that is not',
    async run({ journal }) {
      const j = journal()
      await j.write('inbox.admit', [
        { kind: 'inbox', record: inboxRecord('late', { state: 'failed', nextAttemptAt: 5_000 }), expectVersion: 0 },
        { kind: 'inbox', record: inboxRecord('soon', { state: 'failed', nextAttemptAt: 2_000 }), expectVersion: 0 },
        {
          kind: 'inbox',
          record: inboxRecord('leased', { state: 'processing', lease: { owner: 'i', token: 1, expiresAt: 3_000, acquiredAt: 1_000 } }),
          expectVersion: 0,
        },
        { kind: 'inbox', record: inboxRecord('finished', { state: 'done' }), expectVersion: 0 },
        { kind: 'inbox', record: inboxRecord('buried', { state: 'dead' }), expectVersion: 0 },
      ])
      const due = await j.due('inbox', 3_000, 10)
      assert.deepEqual(
        due.map((r) => r.record.id),
        ['soon', 'leased'],
      )
      assert.deepEqual(
        (await j.due('inbox', 10_000, 10)).map((r) => r.record.id),
        ['soon', 'leased', 'late'],
      )
      assert.deepEqual(
        (await j.due('inbox', 10_000, 2)).map((r) => r.record.id),
        ['soon', 'leased'],
      )
      assert.deepEqual(await j.due('outbox', 10_000, 10), [])
    },
  },
  {
    name: 'the due index follows a record as it changes state',
    async run({ journal }) {
      const j = journal()
      await j.write('outbox.journal', [
        { kind: 'outbox', record: outboxRecord('k', { state: 'pending', nextAttemptAt: 1_500 }), expectVersion: 0 },
      ])
      assert.equal((await j.due('outbox', 2_000, 10)).length, 1)
      await j.write('outbox.markSent', [
        { kind: 'outbox', record: outboxRecord('k', { state: 'sent', updatedAt: 1_600 }), expectVersion: 1 },
      ])
      assert.equal((await j.due('outbox', 1e13, 10)).length, 0)
      await j.write('operator.retry', [
        { kind: 'outbox', record: outboxRecord('k', { state: 'pending', nextAttemptAt: 9_000 }), expectVersion: 2 },
      ])
      assert.equal((await j.due('outbox', 8_999, 10)).length, 0)
      assert.equal((await j.due('outbox', 9_000, 10)).length, 1)
    },
  },
  {
    name: 'a state lists in time order, pages with a cursor and stops before a time',
    async run({ journal }) {
      const j = journal()
      const times = [5, 1, 3, 3, 2, 4]
      await j.write(
        'inbox.admit',
        times.map((t, n) => ({ kind: 'inbox' as const, record: inboxRecord(`m${n}`, { state: 'dead', updatedAt: t }), expectVersion: 0 })),
      )
      await j.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('other', { state: 'done', updatedAt: 0 }), expectVersion: 0 }])
      const all = await j.list('inbox', { state: 'dead', limit: 100 })
      assert.deepEqual(
        all.map((r) => r.record.id),
        ['m1', 'm4', 'm2', 'm3', 'm5', 'm0'],
      )
      const first = await j.list('inbox', { state: 'dead', limit: 2 })
      const last = first.at(-1)!.record
      const second = await j.list('inbox', { state: 'dead', limit: 3, after: { stateTime: last.updatedAt, key: last.id } })
      assert.deepEqual(
        second.map((r) => r.record.id),
        ['m2', 'm3', 'm5'],
      )
      const old = await j.list('inbox', { state: 'dead', limit: 100, before: 3 })
      assert.deepEqual(
        old.map((r) => r.record.id),
        ['m1', 'm4'],
      )
      assert.deepEqual(await j.list('inbox', { state: 'failed', limit: 10 }), [])
    },
  },
  {
    name: 'counts per state follow every write and delete',
    async run({ journal }) {
      const j = journal()
      await j.write('outbox.journal', [
        { kind: 'outbox', record: outboxRecord('a', { state: 'sent' }), expectVersion: 0 },
        { kind: 'outbox', record: outboxRecord('b', { state: 'sent' }), expectVersion: 0 },
        { kind: 'outbox', record: outboxRecord('c', { state: 'dead' }), expectVersion: 0 },
      ])
      assert.deepEqual(withoutZeros(await j.count('outbox')), { sent: 2, dead: 1 })
      await j.write('operator.retry', [{ kind: 'outbox', record: outboxRecord('c', { state: 'pending' }), expectVersion: 1 }])
      await j.write('operator.discard', [{ kind: 'outbox', delete: 'a', expectVersion: 1 }])
      assert.deepEqual(withoutZeros(await j.count('outbox')), { sent: 1, pending: 1 })
      assert.deepEqual(withoutZeros(await j.count('inbox')), {})
    },
  },
  {
    name: 'purge deletes only the named state older than the cut, at most the limit',
    async run({ journal }) {
      const j = journal()
      await j.write('outbox.journal', [
        ...[1, 2, 3, 4].map((t) => ({
          kind: 'outbox' as const,
          record: outboxRecord(`old${t}`, { state: 'sent', updatedAt: t }),
          expectVersion: 0,
        })),
        { kind: 'outbox', record: outboxRecord('new', { state: 'sent', updatedAt: 100 }), expectVersion: 0 },
        { kind: 'outbox', record: outboxRecord('deadold', { state: 'dead', updatedAt: 1 }), expectVersion: 0 },
      ])
      assert.equal(await j.purge('outbox', 'sent', 50, 3), 3)
      assert.equal(await j.purge('outbox', 'sent', 50, 3), 1)
      assert.equal(await j.purge('outbox', 'sent', 50, 3), 0)
      const left = await j.read('outbox', ['old1', 'old4', 'new', 'deadold'])
      assert.deepEqual(
        left.map((r) => r?.record.key),
        [undefined, undefined, 'new', 'deadold'],
      )
      assert.deepEqual(withoutZeros(await j.count('outbox')), { sent: 1, dead: 1 })
    },
  },
  {
    name: 'scopes keep records apart: same ids, separate records, indexes and counts',
    async run({ backend, scopeId }) {
      if (!backend.scoped) return
      const [a, b] = [scopeId(), scopeId()]
      const ja = backend.journal(a)
      const jb = backend.journal(b)
      await ja.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('reminder:1', { chatId: 'A' }), expectVersion: 0 }])
      const [inB] = await jb.write('outbox.journal', [
        { kind: 'outbox', record: outboxRecord('reminder:1', { chatId: 'B' }), expectVersion: 0 },
      ])
      assert.deepEqual(inB, { ok: true, version: 1 })
      assert.equal((await ja.read('outbox', ['reminder:1']))[0]!.record.chatId, 'A')
      assert.equal((await jb.read('outbox', ['reminder:1']))[0]!.record.chatId, 'B')
      await ja.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m', { state: 'failed', nextAttemptAt: 1 }), expectVersion: 0 }])
      assert.equal((await ja.due('inbox', 10, 10)).length, 1)
      assert.equal((await jb.due('inbox', 10, 10)).length, 0)
      assert.deepEqual(withoutZeros(await jb.count('inbox')), {})
      assert.equal(await jb.purge('outbox', 'pending', 1e13, 10), 1)
      assert.equal((await ja.read('outbox', ['reminder:1']))[0]!.record.chatId, 'A')
      const scopes = await backend.scopes()
      assert.ok(scopes.includes(a), `scopes() lists ${a}: ${scopes.join(', ')}`)
    },
  },
  {
    name: 'instance heartbeats are records with an expiry in the due index',
    async run({ journal }) {
      const j = journal()
      const beat = {
        instanceId: 'host/bot/1',
        botId: 'bot',
        host: 'host',
        pid: 42,
        startedAt: 10,
        lastBeatAt: 20,
        lastSweepAt: null,
        expiresAt: 50,
        metrics: { inboundJournaled: 3 },
      }
      await j.write('instances.beat', [{ kind: 'instances', record: beat, expectVersion: 0 }])
      assert.deepEqual((await j.read('instances', ['host/bot/1']))[0]!.record, beat)
      assert.equal((await j.due('instances', 49, 10)).length, 0)
      assert.equal((await j.due('instances', 50, 10)).length, 1)
      assert.equal((await j.list('instances', { state: 'live', limit: 10 })).length, 1)
    },
  },
]

function withoutZeros(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0))
}
