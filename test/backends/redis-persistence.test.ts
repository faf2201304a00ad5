/**
 * Redis with AOF (`appendfsync always`) killed with SIGKILL in the middle of a run: every write the
 * backend acknowledged is there after the restart; while the server is down calls reject with a
 * typed, retryable error; the same RedisDurability instance works again once it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import type { Journal, JournalWriteResult } from '../../src/core/durability/journal/backend.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { BotmeshError, JournalUnavailableError } from '../../src/core/errors/errors.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { randomPrefix, redisBinariesAvailable, startRedisServer, waitFor, type RedisServer } from '../../test-utils/redis.js'

const available = await redisBinariesAvailable('RedisDurability persistence on a private redis-server with AOF')

const RECORDS = 200
const KILL_AT = 120
const WRITERS = 4
const TIMEOUTS = { connectTimeoutMs: 1_000, commandTimeoutMs: 2_000 }

describe.runIf(available)('RedisDurability on a private redis-server with AOF, killed mid-run', () => {
  let server: RedisServer

  beforeAll(async () => {
    server = await startRedisServer({ flags: ['--appendonly', 'yes', '--appendfsync', 'always'] })
  }, 30_000)

  afterAll(async () => {
    await server?.stop()
  })

  it('loses no acknowledged write, fails fast while down and recovers without a restart of the backend', async () => {
    const durability = new RedisDurability({ url: server.url, prefix: randomPrefix(), ...TIMEOUTS })
    await durability.start()
    const journal = durability.journal('bot-a')
    let outage: Promise<unknown[]> | undefined
    let acknowledged = 0
    // Four writers run concurrently; the server is SIGKILLed while their writes are in flight.
    const writer = async (first: number) => {
      for (let n = first; n < RECORDS; n += WRITERS) {
        await writeUntilAcknowledged(journal, inboxRecord(`m${n}`, { updatedAt: 1_000 + n }))
        // Every tenth record also moves on, so versions > 1 and index moves are persisted too.
        if (n % 10 === 0) await writeUntilAcknowledged(journal, inboxRecord(`m${n}`, { state: 'done', updatedAt: 5_000 + n }), 1)
        if (++acknowledged === KILL_AT) outage = killAndRestart(server, journal)
      }
    }
    try {
      await Promise.all(Array.from({ length: WRITERS }, (_, first) => writer(first)))
      const outageErrors = await outage!

      expect(outageErrors).toHaveLength(4)
      for (const error of outageErrors) {
        expect(error).toBeInstanceOf(JournalUnavailableError)
        expect((error as BotmeshError).code).toBe('JOURNAL_UNAVAILABLE')
        expect((error as BotmeshError).retryable).toBe(true)
      }

      // Kill once more after the last write, so everything below is read back from the AOF alone.
      await server.kill()
      await server.restart()
      await waitFor('the backend to reconnect', () =>
        durability.now().then(
          () => true,
          () => false,
        ),
      )
      const read = await journal.read(
        'inbox',
        Array.from({ length: RECORDS }, (_, n) => `m${n}`),
      )
      expect(read.filter((entry) => entry === undefined)).toEqual([])
      read.forEach((entry, n) => {
        expect(entry!.version).toBe(n % 10 === 0 ? 2 : 1)
        expect(entry!.record.state).toBe(n % 10 === 0 ? 'done' : 'pending')
      })
      expect(await journal.count('inbox')).toEqual({ pending: RECORDS - RECORDS / 10, done: RECORDS / 10 })
      expect((await journal.due('inbox', 1e13, RECORDS)).length).toBe(RECORDS - RECORDS / 10)
      expect((await journal.list('inbox', { state: 'done', limit: 3 })).map((entry) => entry.record.id)).toEqual(['m0', 'm10', 'm20'])
    } finally {
      await durability.stop()
    }
  })

  it('stops while the server is down, and a start while it is down rejects with a retryable error', async () => {
    const running = new RedisDurability({ url: server.url, prefix: randomPrefix(), ...TIMEOUTS })
    await running.start()
    await server.kill()
    try {
      await waitFor('the client to notice', () => running.kv.connection.client().status !== 'ready')
      await running.stop()
      const durability = new RedisDurability({ url: server.url, prefix: randomPrefix(), ...TIMEOUTS })
      const error = await durability.start().then(
        () => undefined,
        (failure: unknown) => failure,
      )
      expect(error).toBeInstanceOf(JournalUnavailableError)
      expect((error as BotmeshError).retryable).toBe(true)
      await durability.stop()
    } finally {
      await server.restart()
    }
  })
})

/** Kills the server, collects the errors of calls made while it is down, and starts it again. */
async function killAndRestart(server: RedisServer, journal: Journal): Promise<unknown[]> {
  await server.kill()
  const errors = await callsWhileDown(journal, server.url)
  await server.restart()
  return errors
}

/** A write, a read, a count and a due query while the server is down; each must reject (the errors are returned). */
async function callsWhileDown(journal: Journal, url: string): Promise<unknown[]> {
  const calls: Promise<unknown>[] = [
    journal.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('while-down'), expectVersion: 0 }]),
    journal.read('inbox', ['m0']),
    journal.count('inbox'),
    journal.due('inbox', 1e13, 10),
  ]
  const outcomes = await Promise.allSettled(calls)
  return outcomes.map((outcome) => {
    if (outcome.status === 'fulfilled') throw new Error(`a call succeeded while the server at ${url} was down`)
    return outcome.reason
  })
}

/**
 * Writes until the backend acknowledges, retrying retryable failures (the server restarting). A
 * retry of a write whose earlier attempt was applied but not acknowledged finds it in place.
 */
async function writeUntilAcknowledged(journal: Journal, record: InboxRecord, expectVersion = 0): Promise<void> {
  let result: JournalWriteResult | undefined
  await waitFor(`the write of ${record.id}`, async () => {
    try {
      ;[result] = await journal.write('inbox.admit', [{ kind: 'inbox', record, expectVersion }])
      return true
    } catch (error) {
      if (!(error instanceof BotmeshError) || !error.retryable) throw error
      return false
    }
  })
  if (result!.ok) return
  // Not ours to win: only acceptable if the record already is what we wrote (an unacknowledged earlier attempt).
  expect(result!.current?.record).toEqual(record)
}
