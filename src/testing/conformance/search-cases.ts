/**
 * Conformance cases of a search by content (`JournalListQuery.search`): every backend keeps the
 * same records, whether it searches in its database (SQLite, PostgreSQL) or in the process.
 */
import assert from 'node:assert/strict'
import type { Journal } from '../../core/durability/journal/backend.js'
import type { ConformanceCase } from './case.js'
import { inboxRecord, outboxRecord } from './fixtures.js'

/** Inbound records of one state, each with the content a case searches. */
const INBOUND: [id: string, event: Record<string, unknown>][] = [
  ['plain', { id: 'plain', chatId: 'c', text: 'Where is my ORDER 1042?' }],
  ['caption', { id: 'caption', chatId: 'c', text: 'photo of the order', media: { v: 1, data: 'x' } }],
  ['button', { id: 'button', chatId: 'c', interaction: { id: 'confirm-refund', data: { title: 'Yes, refund' } } }],
  ['literal', { id: 'literal', chatId: 'c', text: '100% off_now "quoted" back\\slash' }],
  ['accents', { id: 'accents', chatId: 'c', text: 'Café ÉCOLE' }],
  ['order-in-id-only', { id: 'order-in-id-only', chatId: 'order', text: 'nothing here' }],
]

/** Sends of one state: a plain text, a caption and buttons. */
const SENDS: [key: string, payload: unknown][] = [
  ['s-text', 'Your ORDER ships today'],
  ['s-media', { media: { type: 'image', url: 'https://x/order.png' }, caption: 'the invoice' }],
  [
    's-buttons',
    {
      text: 'Pick one',
      buttons: [
        { id: 'a', title: 'Track order' },
        { id: 'b', title: 'Cancel' },
      ],
    },
  ],
]

async function seed(j: Journal): Promise<void> {
  await j.write(
    'inbox.admit',
    INBOUND.map(([id, event], n) => ({
      kind: 'inbox' as const,
      record: inboxRecord(id, { state: 'dead', chatId: String(event.chatId), event: event as never, updatedAt: 1_000 + n }),
      expectVersion: 0,
    })),
  )
  await j.write(
    'outbox.journal',
    SENDS.map(([key, payload], n) => ({
      kind: 'outbox' as const,
      record: outboxRecord(key, { state: 'dead', payload: payload as never, updatedAt: 1_000 + n }),
      expectVersion: 0,
    })),
  )
}

async function found(j: Journal, kind: 'inbox' | 'outbox', search: string, limit = 100): Promise<string[]> {
  const page = await j.list(kind, { state: 'dead', limit, search })
  return page.map((r) => ('id' in r.record ? r.record.id : (r.record as { key: string }).key))
}

export const SEARCH_CASES: ConformanceCase[] = [
  {
    name: 'a search keeps the records whose text, caption or button holds the text, ignoring case',
    async run({ journal }) {
      const j = journal()
      await seed(j)
      assert.deepEqual(await found(j, 'inbox', 'order'), ['plain', 'caption'])
      assert.deepEqual(await found(j, 'inbox', 'REFUND'), ['button'])
      assert.deepEqual(await found(j, 'inbox', 'école'), ['accents'])
      assert.deepEqual(await found(j, 'inbox', 'café'), ['accents'])
      assert.deepEqual(await found(j, 'outbox', 'order'), ['s-text', 's-buttons'])
      assert.deepEqual(await found(j, 'outbox', 'INVOICE'), ['s-media'])
      assert.deepEqual(await found(j, 'inbox', 'nowhere to be found'), [])
      assert.deepEqual(await found(j, 'inbox', 'text'), [], 'a field name is not content')
    },
  },
  {
    name: 'a search matches %, _, quotes and backslashes literally',
    async run({ journal }) {
      const j = journal()
      await seed(j)
      assert.deepEqual(await found(j, 'inbox', '100%'), ['literal'])
      assert.deepEqual(await found(j, 'inbox', '0%'), ['literal'])
      assert.deepEqual(await found(j, 'inbox', 'off_now'), ['literal'])
      assert.deepEqual(await found(j, 'inbox', '%'), ['literal'])
      assert.deepEqual(await found(j, 'inbox', '_'), ['literal'])
      assert.deepEqual(await found(j, 'inbox', '"quoted"'), ['literal'])
      assert.deepEqual(await found(j, 'inbox', 'back\\slash'), ['literal'])
      assert.deepEqual(await found(j, 'inbox', "'; DROP TABLE x; --"), [])
    },
  },
  {
    name: 'a search pages: a full page goes on after its last record, a short one is the end',
    async run({ journal }) {
      const j = journal()
      await j.write(
        'inbox.admit',
        Array.from({ length: 30 }, (_, n) => ({
          kind: 'inbox' as const,
          record: inboxRecord(`m${String(n).padStart(2, '0')}`, {
            state: 'dead',
            updatedAt: 1_000 + n,
            event: { id: `m${n}`, chatId: 'c', text: n % 3 === 0 ? 'needle here' : 'hay' },
          }),
          expectVersion: 0,
        })),
      )
      const first = await j.list('inbox', { state: 'dead', limit: 4, search: 'NEEDLE' })
      assert.deepEqual(
        first.map((r) => r.record.id),
        ['m00', 'm03', 'm06', 'm09'],
      )
      const last = first.at(-1)!.record
      const rest = await j.list('inbox', {
        state: 'dead',
        limit: 100,
        search: 'needle',
        after: { stateTime: last.updatedAt, key: last.id },
      })
      assert.deepEqual(
        rest.map((r) => r.record.id),
        ['m12', 'm15', 'm18', 'm21', 'm24', 'm27'],
      )
    },
  },
]
