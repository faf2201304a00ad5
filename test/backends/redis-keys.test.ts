/**
 * The durability touches only its own keys: every other key under its prefix (a RedisStore's, an
 * app's), and keys of a prefix that merely starts the same, are left exactly as they were.
 */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { RedisDurability, RedisKeys, RedisStore } from '../../src/backends/redis/index.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable, scanKeys } from '../../test-utils/redis.js'

const available = await redisAvailable('RedisDurability key isolation on the machine Redis')

describe.runIf(available)('RedisDurability keys', () => {
  const admin = new Redis(REDIS_URL, { lazyConnect: true })
  const prefix = randomPrefix()

  afterAll(async () => {
    await deletePrefix(admin, prefix)
    await deletePrefix(admin, `${prefix}x`)
    admin.disconnect()
  })

  it('touches no key but its own, and creates only keys under <prefix>:{durable:', async () => {
    // Keys a store and an app keep under the same prefix, and one under a longer prefix.
    await admin.set(`${prefix}:app:flag`, 'on')
    await admin.hset(`${prefix}:store:bot-a:user:chat-1`, 'name', '"Ana"')
    await admin.zadd(`${prefix}:due`, 1, 'not-ours')
    await admin.set(`${prefix}x:{durable:inbox:bot-a}`, 'another prefix')
    await admin.set(`${prefix}:{durable:inbox:bot-a}x`, 'looks like ours, is not')
    const store = new RedisStore({ client: admin, prefix })
    await store.setUser('bot-a', 'chat-2', 'lang', 'pt')
    await store.appendLog('bot-a', { direction: 'in', chatId: 'chat-2', messageId: 'w1', text: 'oi', at: 1, ref: null })
    const foreign = await snapshot(admin, [...(await scanKeys(admin, `${prefix}*`))])

    const durability = store.durability()
    await durability.start()
    try {
      for (const scope of ['bot-a', 'bot-b']) {
        const journal = durability.journal(scope)
        await journal.write(
          'inbox.admit',
          [1, 2, 3].map((n) => ({
            kind: 'inbox' as const,
            record: inboxRecord(`m${n}`, { state: 'done', updatedAt: n }),
            expectVersion: 0,
          })),
        )
        await journal.write('outbox.journal', [
          { kind: 'outbox', record: outboxRecord('k', { state: 'failed', nextAttemptAt: 9 }), expectVersion: 0 },
        ])
        await journal.write('outbox.markSent', [{ kind: 'outbox', record: outboxRecord('k', { state: 'sent' }), expectVersion: 1 }])
        await journal.write('operator.discard', [{ kind: 'outbox', delete: 'k', expectVersion: 2 }])
        await journal.purge('inbox', 'done', 3, 10)
        await journal.count('inbox')
        await journal.due('outbox', 100, 10)
        await journal.list('inbox', { state: 'done', limit: 10 })
        await journal.write('instances.beat', [
          {
            kind: 'instances',
            record: {
              instanceId: 'i',
              botId: scope,
              host: 'h',
              pid: 1,
              startedAt: 1,
              lastBeatAt: 1,
              lastSweepAt: null,
              expiresAt: 9,
              metrics: {},
            },
            expectVersion: 0,
          },
        ])
      }
      await durability.scopes()
    } finally {
      await durability.stop()
    }

    expect(await snapshot(admin, Object.keys(foreign))).toEqual(foreign)
    const ours = (await scanKeys(admin, `${prefix}*`)).filter((key) => !(key in foreign))
    expect(ours.length).toBeGreaterThan(0)
    for (const key of ours) expect(key.startsWith(`${prefix}:{durable:`)).toBe(true)
    expect((await scanKeys(admin, new RedisKeys(prefix).durablePattern)).sort()).toEqual(
      [...ours, `${prefix}:{durable:inbox:bot-a}x`].sort(),
    )
    // The injected client is the caller's.
    expect(await admin.ping()).toBe('PONG')
  })
})

/** Each key's type, serialized value (DUMP) and TTL. */
async function snapshot(client: Redis, keys: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const key of keys) out[key] = [await client.type(key), (await client.dumpBuffer(key))?.toString('base64'), await client.pttl(key)]
  return out
}
