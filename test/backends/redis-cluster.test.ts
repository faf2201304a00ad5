import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisDurability, RedisKeys, RedisKv, RedisStore } from '../../src/backends/redis/index.js'
import type { KvPut } from '../../src/core/spi.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { describeConformance } from '../../test-utils/durability-conformance.js'
import {
  deletePrefix,
  laneRested,
  randomPrefix,
  recordCommands,
  redisBinariesAvailable,
  scanKeys,
  startRedisCluster,
  type RedisClusterServers,
} from '../../test-utils/redis.js'

const available = await redisBinariesAvailable('RedisDurability on a private 3-node Redis Cluster')

describe.runIf(available)('RedisDurability on a private 3-node Redis Cluster', () => {
  let cluster: RedisClusterServers
  let admin: Cluster

  beforeAll(async () => {
    cluster = await startRedisCluster(3)
    admin = new Cluster(cluster.nodes)
  }, 60_000)

  afterAll(async () => {
    await admin?.quit()
    await cluster?.stop()
  })

  describeConformance('RedisDurability({ cluster })', {
    create: async () => new RedisDurability({ cluster: cluster.nodes, prefix: randomPrefix() }),
    cleanup: async (backend: DurabilityBackend) => {
      await deletePrefix(admin, (backend as RedisDurability).prefix)
    },
  })

  it('keeps each scope and collection in one slot, and spreads scopes over the nodes', async () => {
    const prefix = randomPrefix()
    const durability = new RedisDurability({ cluster: { nodes: cluster.nodes, options: { slotsRefreshInterval: 60_000 } }, prefix })
    await durability.start()
    try {
      const scopes = Array.from({ length: 24 }, (_, n) => `bot-${n}`)
      for (const scope of scopes) {
        const journal = durability.journal(scope)
        await journal.write('inbox.admit', [
          { kind: 'inbox', record: inboxRecord('m', { state: 'failed', nextAttemptAt: 5 }), expectVersion: 0 },
        ])
        await journal.write('outbox.journal', [{ kind: 'outbox', record: outboxRecord('k', { state: 'sent' }), expectVersion: 0 }])
      }
      const keys = new RedisKeys(prefix)
      for (const scope of scopes) {
        for (const collection of ['inbox', 'outbox']) {
          const group = keys.collection(scope, collection)
          const slots = new Set(
            await Promise.all(
              [group.entries, group.due, group.states, group.state('failed'), group.state('sent')].map((key) =>
                admin.cluster('KEYSLOT', key),
              ),
            ),
          )
          expect(slots.size).toBe(1)
        }
      }
      const perNode = await Promise.all(admin.nodes('master').map((node) => node.dbsize()))
      expect(perNode.filter((n) => n > 0).length).toBeGreaterThan(1)
      expect((await durability.scopes()).sort()).toEqual([...scopes].sort())
    } finally {
      await durability.stop()
      await deletePrefix(admin, prefix)
    }
    expect(await scanKeys(admin, `${prefix}:*`)).toEqual([])
  })

  it('takes scope ids with braces, percent signs and colons', async () => {
    const prefix = randomPrefix()
    const durability = new RedisDurability({ cluster: cluster.nodes, prefix })
    await durability.start()
    try {
      const scopes = ['we{ir}d', '50%', 'tenant:a/bot:b', '}{']
      for (const scope of scopes) {
        const journal = durability.journal(scope)
        await journal.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord(`m-${scope}`, { state: 'dead' }), expectVersion: 0 }])
        expect((await journal.list('inbox', { state: 'dead', limit: 5 })).map((entry) => entry.record.id)).toEqual([`m-${scope}`])
        expect(await journal.count('inbox')).toEqual({ dead: 1 })
      }
      expect((await durability.scopes()).sort()).toEqual([...scopes].sort())
    } finally {
      await durability.stop()
      await deletePrefix(admin, prefix)
    }
  })

  it('runs a RedisStore and its durability on one Cluster connection', async () => {
    const prefix = randomPrefix()
    const store = new RedisStore({ cluster: cluster.nodes, prefix, messageLogMax: 2 })
    const durability = store.durability()
    await store.start()
    await durability.start()
    try {
      await store.setUser('bot-a', 'c1', 'name', 'Ana')
      await store.setCheckpoint('bot-a', 'c1', { step: 1 })
      for (const n of [1, 2, 3])
        await store.appendLog('bot-a', { direction: 'in', chatId: 'c1', messageId: `w${n}`, text: null, at: n, ref: null })
      await durability.journal('bot-a').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
      expect(await store.getUser('bot-a', 'c1', 'name')).toBe('Ana')
      expect(await store.getCheckpoint('bot-a', 'c1')).toEqual({ step: 1 })
      expect((await store.listLog('bot-a', 'c1', 10)).map((entry) => entry.messageId)).toEqual(['w2', 'w3'])
      expect((await durability.journal('bot-a').read('inbox', ['m1']))[0]!.version).toBe(1)
    } finally {
      await durability.stop()
      await store.stop()
      await deletePrefix(admin, prefix)
    }
  })

  it('group commit keeps one call per slot: a write across two collections is two calls; concurrent writes share per slot', async () => {
    const prefix = randomPrefix()
    const client = new Cluster(cluster.nodes)
    const sent: string[] = []
    recordCommands(client, sent)
    const kv = new RedisKv({ client, prefix })
    const put = (collection: string, key: string, expectVersion = 0): KvPut => ({
      op: 'put',
      collection,
      key,
      expectVersion,
      value: { key },
      state: 'pending',
      stateTime: 1,
      due: null,
    })
    await kv.start()
    try {
      // A lane rests for the rest of the turn a reply started (group-commit.ts): each count starts after it.
      await kv.write([put('inbox', 'warm'), put('outbox', 'warm')]) // scopes recorded, scripts known on both nodes
      await laneRested()
      sent.length = 0
      expect(await kv.write([put('inbox', 'both'), put('outbox', 'both')])).toEqual([
        { ok: true, version: 1 },
        { ok: true, version: 1 },
      ])
      expect(sent).toEqual(['evalsha', 'evalsha'])
      await laneRested()
      sent.length = 0
      // Each slot: its first write at once, the other four together once it answers.
      const writes = Array.from({ length: 10 }, (_, n) => kv.write([put(n % 2 ? 'inbox' : 'outbox', `c${n}`)]))
      writes.push(kv.write([put('inbox', 'c1', 1)])) // a same-key pair in one batch, in call order
      const results = await Promise.all(writes)
      expect(sent).toEqual(['evalsha', 'evalsha', 'evalsha', 'evalsha'])
      expect(results.at(-1)).toEqual([{ ok: true, version: 2 }])
    } finally {
      await kv.stop()
      await deletePrefix(admin, prefix)
      client.disconnect()
    }
  })
})
