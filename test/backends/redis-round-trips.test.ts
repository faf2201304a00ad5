/**
 * Round trips per journal operation, counted on the client (every command the ioredis client
 * sends) and on a private server (INFO commandstats: the work each script does inside Redis).
 * The counts are asserted: each compare-and-set or transition is one command. The table printed
 * at the end is the figure for reports; nothing here measures time.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import type { Journal } from '../../src/core/durability/journal/backend.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { recordCommands, redisBinariesAvailable, startRedisServer, type RedisServer } from '../../test-utils/redis.js'

const available = await redisBinariesAvailable('RedisDurability round trips on a private redis-server')

interface Measured {
  /** Commands the client sent, in order. */
  sent: string[]
  /** Commands Redis executed, by name (those run inside scripts included). */
  executed: Record<string, number>
}

describe.runIf(available)('RedisDurability round trips', () => {
  let server: RedisServer
  let client: Redis
  let admin: Redis
  let durability: RedisDurability
  let journal: Journal
  const sent: string[] = []
  const table: Record<string, { sent: string; executedInRedis: string }> = {}

  beforeAll(async () => {
    server = await startRedisServer()
    admin = new Redis(server.url)
    client = new Redis(server.url)
    await client.ping()
    recordCommands(client, sent)
    durability = new RedisDurability({ client, prefix: 'rt' })
    await durability.start()
    journal = durability.journal('bot-a')
    // Warm up: the scope is recorded and every script is known to the server.
    await journal.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('warm'), expectVersion: 0 }])
    await journal.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('warm'), expectVersion: 0 }])
    await journal.due('inbox', 0, 1)
    await journal.list('inbox', { state: 'done', limit: 1 })
    await journal.count('inbox')
    await journal.purge('inbox', 'done', 0, 1)
  }, 30_000)

  afterAll(async () => {
    await durability?.stop()
    client?.disconnect()
    admin?.disconnect()
    await server?.stop()
    const rows = Object.entries(table).map(([operation, row]) => `  ${operation.padEnd(44)} ${row.sent.padEnd(22)} ${row.executedInRedis}`)
    console.log(['Redis round trips per operation (client commands | commands run inside Redis):', ...rows].join('\n'))
  })

  async function measure(operation: string, call: () => Promise<unknown>): Promise<Measured> {
    await admin.config('RESETSTAT')
    sent.length = 0
    await call()
    const executed: Record<string, number> = {}
    for (const [, name, calls] of (await admin.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (!name!.startsWith('config') && name !== 'info') executed[name!] = Number(calls)
    }
    const result = { sent: [...sent], executed }
    table[operation] = {
      sent: result.sent.join(' + '),
      executedInRedis: Object.entries(executed)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, n]) => `${name}×${n}`)
        .join(' '),
    }
    return result
  }

  it('an insert is one command', async () => {
    const { sent } = await measure('insert (inbox.admit, 1 record)', () =>
      journal.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1', { state: 'pending' }), expectVersion: 0 }]),
    )
    expect(sent).toEqual(['evalsha'])
  })

  it('a compare-and-set replace, and a refused one, are one command each', async () => {
    const claimed = inboxRecord('m1', {
      state: 'processing',
      lease: { owner: 'i', token: 1, expiresAt: 9_000, acquiredAt: 1_000 },
      fencingToken: 1,
    })
    expect(
      (
        await measure('CAS replace (inbox.claim)', () =>
          journal.write('inbox.claim', [{ kind: 'inbox', record: claimed, expectVersion: 1 }]),
        )
      ).sent,
    ).toEqual(['evalsha'])
    expect(
      (
        await measure('CAS refused (stale version)', () =>
          journal.write('inbox.complete', [{ kind: 'inbox', record: claimed, expectVersion: 1 }]),
        )
      ).sent,
    ).toEqual(['evalsha'])
  })

  it('reads are one command each: get, due, list, count, now', async () => {
    expect((await measure('get (1 record)', () => journal.read('inbox', ['m1']))).sent).toEqual(['hmget'])
    expect((await measure('get (3 records)', () => journal.read('inbox', ['m1', 'warm', 'missing']))).sent).toEqual(['hmget'])
    expect((await measure('due (sweep query)', () => journal.due('inbox', 1e13, 100))).sent).toEqual(['evalsha'])
    expect((await measure('list (one page of a state)', () => journal.list('inbox', { state: 'processing', limit: 50 }))).sent).toEqual([
      'evalsha',
    ])
    expect((await measure('count (all states)', () => journal.count('inbox'))).sent).toEqual(['evalsha'])
    expect((await measure('now (server clock)', () => durability.now())).sent).toEqual(['time'])
  })

  it('a batch on one collection is one command; a write across two collections is one command too', async () => {
    const batch = Array.from({ length: 10 }, (_, n) => ({ kind: 'outbox' as const, record: outboxRecord(`b${n}`), expectVersion: 0 }))
    expect((await measure('batch insert (10 sends, one collection)', () => journal.write('outbox.journal', batch))).sent).toEqual([
      'evalsha',
    ])
    const mixed = await measure('write across inbox + outbox', () =>
      journal.write('inbox.complete', [
        { kind: 'inbox', record: inboxRecord('m1', { state: 'done' }), expectVersion: 2 },
        { kind: 'outbox', record: outboxRecord('b0', { state: 'sent' }), expectVersion: 1 },
      ]),
    )
    expect(mixed.sent).toEqual(['evalsha'])
    expect((await measure('purge (up to 10 of a state)', () => journal.purge('outbox', 'pending', 1e13, 10))).sent).toEqual(['evalsha'])
  })

  it('the first write of a scope in a process records the scope first; a server that lost its script cache costs one EVAL', async () => {
    const other = durability.journal('bot-b')
    const first = await measure('first write of a new scope (once per process)', () =>
      other.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }]),
    )
    expect(first.sent).toEqual(['sadd', 'evalsha'])
    await admin.script('FLUSH')
    const reloaded = await measure('insert after SCRIPT FLUSH / restart (once)', () =>
      other.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m2'), expectVersion: 0 }]),
    )
    expect(reloaded.sent).toEqual(['evalsha', 'eval'])
  })
})
