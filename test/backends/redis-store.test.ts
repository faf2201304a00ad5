import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { RedisDurability, RedisKeys, RedisStore } from '../../src/backends/redis/index.js'
import { BotmeshError, ConfigError } from '../../src/core/errors/errors.js'
import type { MessageLogEntry } from '../../src/core/store/store.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable, scanKeys } from '../../test-utils/redis.js'

const available = await redisAvailable('RedisStore on the machine Redis')

describe.runIf(available)('RedisStore', () => {
  const admin = new Redis(REDIS_URL, { lazyConnect: true })
  const prefixes: string[] = []
  const open = async (options: { messageLogMax?: number } = {}) => {
    const prefix = randomPrefix()
    prefixes.push(prefix)
    const store = new RedisStore({ url: REDIS_URL, prefix, ...options })
    await store.start()
    return { store, prefix }
  }

  afterAll(async () => {
    for (const prefix of prefixes) await deletePrefix(admin, prefix)
    admin.disconnect()
  })

  it('keeps user data per scope, chat and key, values as JSON', async () => {
    const { store } = await open()
    try {
      expect(await store.getUser('bot-a', 'chat:1', 'name')).toBeUndefined()
      await store.setUser('bot-a', 'chat:1', 'name', 'Ana')
      await store.setUser('bot-a', 'chat:1', 'prefs', { lang: 'pt', tags: ['a', null, 1.5], nested: { ok: true } })
      await store.setUser('bot-b', 'chat:1', 'name', 'Bia')
      // A scope or chat id with the separator or braces in it cannot land on another pair's key.
      await store.setUser('bot-a:user:chat', '1', 'name', 'Other')
      await store.setUser('bot-a', '{chat:1}', 'name', 'Braced')
      expect(await store.getUser('bot-a', 'chat:1', 'name')).toBe('Ana')
      expect(await store.getUser('bot-a', 'chat:1', 'prefs')).toEqual({ lang: 'pt', tags: ['a', null, 1.5], nested: { ok: true } })
      expect(await store.getUser('bot-b', 'chat:1', 'name')).toBe('Bia')
      expect(await store.getUser('bot-a:user:chat', '1', 'name')).toBe('Other')
      expect(await store.getUser('bot-a', '{chat:1}', 'name')).toBe('Braced')
      await store.setUser('bot-a', 'chat:1', 'name', null)
      expect(await store.getUser('bot-a', 'chat:1', 'name')).toBeNull()
    } finally {
      await store.stop()
    }
  })

  it('sets, reads and deletes a chat checkpoint', async () => {
    const { store } = await open()
    try {
      expect(await store.getCheckpoint('bot-a', 'c1')).toBeUndefined()
      await store.setCheckpoint('bot-a', 'c1', { flow: 'signup', step: 1, state: { name: 'Ana' } })
      await store.setCheckpoint('bot-a', 'c1', { flow: 'signup', step: 2, state: { name: 'Ana' } })
      expect(await store.getCheckpoint('bot-a', 'c1')).toEqual({ flow: 'signup', step: 2, state: { name: 'Ana' } })
      expect(await store.getCheckpoint('bot-b', 'c1')).toBeUndefined()
      await store.deleteCheckpoint('bot-a', 'c1')
      expect(await store.getCheckpoint('bot-a', 'c1')).toBeUndefined()
      await store.deleteCheckpoint('bot-a', 'c1')
    } finally {
      await store.stop()
    }
  })

  it('keeps the newest messageLogMax log entries per chat, oldest first', async () => {
    const { store, prefix } = await open({ messageLogMax: 3 })
    try {
      const entry = (n: number, chatId = 'c1'): MessageLogEntry => ({
        direction: n % 2 ? 'out' : 'in',
        chatId,
        messageId: `w${n}`,
        text: `t${n}`,
        at: n,
        ref: null,
      })
      for (let n = 1; n <= 5; n++) await store.appendLog('bot-a', entry(n))
      await store.appendLog('bot-a', entry(9, 'c2'))
      expect(await store.listLog('bot-a', 'c1', 10)).toEqual([entry(3), entry(4), entry(5)])
      expect(await store.listLog('bot-a', 'c1', 2)).toEqual([entry(4), entry(5)])
      expect(await store.listLog('bot-a', 'c2', 10)).toEqual([entry(9, 'c2')])
      expect(await store.listLog('bot-b', 'c1', 10)).toEqual([])
      expect(await store.listLog('bot-a', 'c1', 0)).toEqual([])
      expect(await admin.llen(new RedisKeys(prefix).storeLog('bot-a', 'c1'))).toBe(3)
    } finally {
      await store.stop()
    }
  })

  it('hands out one RedisDurability that shares its connection, in any start/stop order', async () => {
    const { store, prefix } = await open()
    const durability = store.durability()
    expect(store.durability()).toBe(durability)
    expect(durability).toBeInstanceOf(RedisDurability)
    expect(durability.kind).toBe('redis')
    expect(durability.shared).toBe(true)
    expect(durability.prefix).toBe(prefix)
    await durability.start()
    // The store stops first: the durability keeps working on the shared connection.
    await store.stop()
    const [written] = await durability
      .journal('bot-a')
      .write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
    expect(written!.ok).toBe(true)
    const client = durability.kv.connection.client()
    await durability.stop()
    // The last user released it: our own connection is closed.
    expect(client.status).toBe('end')
    await expect(store.getUser('bot-a', 'c', 'k')).rejects.toMatchObject({ code: 'NOT_STARTED' })
    // And again the other way round.
    await durability.start()
    await store.start()
    await durability.stop()
    await store.setUser('bot-a', 'c', 'k', 1)
    expect(await store.getUser('bot-a', 'c', 'k')).toBe(1)
    await store.stop()
    expect(
      (await scanKeys(admin, `${prefix}:*`)).every((key) => key.startsWith(`${prefix}:store:`) || key.startsWith(`${prefix}:{durable:`)),
    ).toBe(true)
  })

  it('refuses options without exactly one connection source, and a prefix with braces', () => {
    expect(() => new RedisStore({})).toThrow(ConfigError)
    expect(() => new RedisStore({ url: REDIS_URL, client: admin })).toThrow(ConfigError)
    expect(() => new RedisStore({ url: REDIS_URL, prefix: 'a{b}' })).toThrow(ConfigError)
    expect(() => new RedisDurability({ cluster: [] })).toThrow(ConfigError)
    expect(() => new RedisStore({ url: REDIS_URL, messageLogMax: 0 })).toThrow(ConfigError)
  })

  it('rejects calls before start with a typed error', async () => {
    const store = new RedisStore({ url: REDIS_URL, prefix: randomPrefix() })
    const error = await store.getUser('s', 'c', 'k').then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(BotmeshError)
    expect((error as BotmeshError).code).toBe('NOT_STARTED')
  })
})
