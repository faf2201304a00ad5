/**
 * Conformance cases of the journal's writes: compare-and-set on insert, replace and delete, writes of
 * one call that do not depend on each other, and records that come back exactly as written.
 */
import assert from 'node:assert/strict'
import type { InboxRecord, OutboxRecord } from '../../core/durability/journal/records.js'
import type { ConformanceCase } from './case.js'
import { inboxRecord, outboxRecord } from './fixtures.js'

export const JOURNAL_WRITE_CASES: ConformanceCase[] = [
  {
    name: 'an insert succeeds once; a second insert of the key returns the record that won',
    async run({ journal }) {
      const j = journal()
      const [first] = await j.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
      assert.deepEqual(first, { ok: true, version: 1 })
      const [second] = await j.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1', { chatId: 'other' }), expectVersion: 0 }])
      assert.equal(second!.ok, false)
      assert.ok(!second!.ok && second!.current)
      assert.equal(!second!.ok && second!.current!.version, 1)
      assert.equal(!second!.ok && (second!.current!.record as InboxRecord).chatId, 'chat-1')
    },
  },
  {
    name: 'a replace needs the current version; a stale version changes nothing',
    async run({ journal }) {
      const j = journal()
      await j.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
      const [replaced] = await j.write('inbox.claim', [
        { kind: 'inbox', record: inboxRecord('m1', { state: 'processing', attempts: 1 }), expectVersion: 1 },
      ])
      assert.deepEqual(replaced, { ok: true, version: 2 })
      const [stale] = await j.write('inbox.complete', [{ kind: 'inbox', record: inboxRecord('m1', { state: 'done' }), expectVersion: 1 }])
      assert.equal(stale!.ok, false)
      assert.equal(!stale!.ok && stale!.current!.version, 2)
      const [read] = await j.read('inbox', ['m1'])
      assert.equal(read!.record.state, 'processing')
      assert.equal(read!.version, 2)
    },
  },
  {
    name: 'a replace of a record that does not exist is refused',
    async run({ journal }) {
      const [result] = await journal().write('inbox.claim', [{ kind: 'inbox', record: inboxRecord('ghost'), expectVersion: 3 }])
      assert.deepEqual(result, { ok: false, current: undefined })
    },
  },
  {
    name: 'a delete needs the current version',
    async run({ journal }) {
      const j = journal()
      await j.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('k1'), expectVersion: 0 }])
      const [stale] = await j.write('operator.discard', [{ kind: 'outbox', delete: 'k1', expectVersion: 7 }])
      assert.equal(stale!.ok, false)
      const [deleted] = await j.write('operator.discard', [{ kind: 'outbox', delete: 'k1', expectVersion: 1 }])
      assert.equal(deleted!.ok, true)
      assert.deepEqual(await j.read('outbox', ['k1']), [undefined])
      const [again] = await j.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('k1'), expectVersion: 0 }])
      assert.deepEqual(again, { ok: true, version: 1 })
    },
  },
  {
    name: 'the writes of one call are independent: a conflict does not stop the others',
    async run({ journal }) {
      const j = journal()
      await j.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('a'), expectVersion: 0 }])
      const results = await j.write('outbox.journal', [
        { kind: 'outbox', record: outboxRecord('a'), expectVersion: 0 },
        { kind: 'outbox', record: outboxRecord('b'), expectVersion: 0 },
        { kind: 'inbox', record: inboxRecord('c'), expectVersion: 0 },
      ])
      assert.deepEqual(
        results.map((r) => r.ok),
        [false, true, true],
      )
      const read = await j.read('outbox', ['b', 'missing', 'a'])
      assert.deepEqual(
        read.map((r) => r?.record.key),
        ['b', undefined, 'a'],
      )
    },
  },
  {
    name: 'concurrent compare-and-sets on one version: exactly one wins',
    async run({ journal }) {
      const j = journal()
      await j.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
      const attempts = Array.from({ length: 16 }, (_, n) =>
        j.write('inbox.claim', [
          { kind: 'inbox', record: inboxRecord('m1', { state: 'processing', fencingToken: n + 1 }), expectVersion: 1 },
        ]),
      )
      const results = (await Promise.all(attempts)).map(([r]) => r!)
      assert.equal(results.filter((r) => r.ok).length, 1)
      const winner = results.findIndex((r) => r.ok)
      const [read] = await j.read('inbox', ['m1'])
      assert.equal(read!.record.fencingToken, winner + 1)
      assert.equal(read!.version, 2)
    },
  },
  {
    name: 'records round-trip exactly: unicode, nesting, empty strings, nulls and big payloads',
    async run({ journal }) {
      const j = journal()
      const event = {
        text: 'héllo 👋 "quoted" \\ back\nslash\u0000nul',
        nested: { list: [1, 2.5, -3, { deep: [null, true, false, ''] }], empty: {} },
        big: 'x'.repeat(512 * 1024),
        max: Number.MAX_SAFE_INTEGER,
      }
      const record = inboxRecord('m:1/ü', { event, lastError: { message: 'boom', code: 'E', at: 5 } })
      await j.write('inbox.admit', [{ kind: 'inbox', record, expectVersion: 0 }])
      const [read] = await j.read('inbox', ['m:1/ü'])
      assert.deepEqual(read!.record, record)
    },
  },
  {
    name: 'a record changed by its caller after a write or a read stays as written in the journal',
    async run({ journal }) {
      const j = journal()
      const record = inboxRecord('m1')
      await j.write('inbox.admit', [{ kind: 'inbox', record, expectVersion: 0 }])
      changeIfAllowed(record)
      const [read] = await j.read('inbox', ['m1'])
      assert.deepEqual(read!.record, inboxRecord('m1'))
      changeIfAllowed(read!.record as InboxRecord)
      assert.deepEqual((await j.read('inbox', ['m1']))[0]!.record, inboxRecord('m1'))
    },
  },
  {
    name: 'an outbox record keeps its part link and every field',
    async run({ journal }) {
      const j = journal()
      const part: OutboxRecord = outboxRecord('inb:1#2', {
        previousPart: 'inb:1',
        keySource: 'derived',
        fingerprint: 'f'.repeat(64),
        inboundId: 'inb',
        ordinal: 1,
        lease: { owner: 'x', token: 4, expiresAt: 99, acquiredAt: 9 },
        fencingToken: 4,
        state: 'sending',
        audit: [{ action: 'retry', by: 'ops@host', at: 5, reason: 'provider outage over' }],
      })
      await j.write('outbox.split', [{ kind: 'outbox', record: part, expectVersion: 0 }])
      assert.deepEqual((await j.read('outbox', ['inb:1#2']))[0]!.record, part)
    },
  },
]

/**
 * Changes a record and its event in place. A backend that keeps records in memory hands out frozen
 * objects, so the change throws (a TypeError in strict code); one that stores a copy lets it happen.
 * Either way the journal must not see it.
 */
function changeIfAllowed(record: InboxRecord): void {
  try {
    ;(record as { chatId: string }).chatId = 'changed'
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
  }
  try {
    ;(record.event as { text?: string }).text = 'changed'
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
  }
}
