/**
 * A search on SQLite and PostgreSQL runs in the database: over a journal of N records where one
 * holds the text, the store's list is asked with the pushed-down fragments and its driver hands
 * back that one record, not N. The memory store (which filters in the process) reads all N: the
 * count measures what it claims to.
 */
import { join } from 'node:path'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import { SQLiteKv } from '../../src/backends/sqlite/kv.js'
import { PostgresKv } from '../../src/backends/postgres/kv.js'
import { KvDurability } from '../../src/core/durability/journal/kv-durability.js'
import { MemoryKv } from '../../src/core/durability/memory/memory-kv.js'
import type { DurableKv, KvListQuery } from '../../src/core/durability/journal/kv.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { PG_URL, dropTablePrefix, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'

const RECORDS = 400
const postgres = await postgresAvailable()

/** What the store's list was asked and how many entries it handed back. */
interface ListTally {
  queries: KvListQuery[]
  entries: number
}

/** `kv` (and its scoped views) with every list counted. */
function counted(kv: DurableKv, tally: ListTally): DurableKv {
  return new Proxy(kv, {
    get(target, name) {
      if (name === 'list')
        return async (collection: string, query: KvListQuery) => {
          tally.queries.push(query)
          const entries = await target.list(collection, query)
          tally.entries += entries.length
          return entries
        }
      if (name === 'scope') return (scopeId: string) => counted(target.scope!(scopeId), tally)
      const value = Reflect.get(target, name) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}

/** Writes RECORDS dead letters, one of which says the needle, and searches for it. */
async function searchOnce(kv: DurableKv): Promise<{ found: string[]; tally: ListTally }> {
  const tally: ListTally = { queries: [], entries: 0 }
  const backend = new KvDurability(counted(kv, tally))
  await backend.start()
  try {
    const journal = backend.journal('acme/search')
    await journal.write(
      'operator.import',
      Array.from({ length: RECORDS }, (_, n) => ({
        kind: 'inbox' as const,
        record: inboxRecord(`m${n}`, {
          state: 'dead',
          updatedAt: 1_000 + n,
          event: { id: `m${n}`, chatId: 'c', text: n === 321 ? 'Where is my parcel 50% OFF_NOW?' : `message ${n}` },
        }),
        expectVersion: 0,
      })),
    )
    tally.queries.length = 0
    tally.entries = 0
    const page = await journal.list('inbox', { state: 'dead', limit: 50, search: 'PARCEL 50% off_now' })
    return { found: page.map((found) => found.record.id), tally }
  } finally {
    await backend.stop()
  }
}

describe('a search runs in the database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-search-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('SQLite hands back only the record that holds the text', async () => {
    const { found, tally } = await searchOnce(new SQLiteKv({ file: join(dir, 'search.db') }))
    expect(found).toEqual(['m321'])
    expect(tally.queries.every((query) => query.search !== undefined && query.search.length > 0)).toBe(true)
    expect(tally.entries).toBe(1)
  })

  it.runIf(postgres)('PostgreSQL hands back only the record that holds the text', async () => {
    const prefix = randomTablePrefix()
    try {
      const { found, tally } = await searchOnce(new PostgresKv({ connectionString: PG_URL, tablePrefix: prefix }))
      expect(found).toEqual(['m321'])
      expect(tally.queries.every((query) => query.search !== undefined)).toBe(true)
      expect(tally.entries).toBe(1)
    } finally {
      await dropTablePrefix(prefix)
    }
  })

  it('the memory store filters in the process: it reads every record', async () => {
    const { found, tally } = await searchOnce(new MemoryKv())
    expect(found).toEqual(['m321'])
    expect(tally.entries).toBe(RECORDS)
  })
})
