/**
 * `botmesh bench --wait-replicas N`: the durable run's journal writes wait for N replicas, against a
 * primary and a replica this file starts (spare ports, their own dirs); the flag is Redis's only.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisBinariesAvailable, startRedisServer, waitFor, type RedisServer } from '../../test-utils/redis.js'
import { botmesh, jsonOf } from './helpers.js'

const available = await redisBinariesAvailable('botmesh bench --wait-replicas on a private primary and replica')

describe('bench --wait-replicas', () => {
  it('is refused on a backend that is not Redis (exit 2)', async () => {
    const sqlite = await botmesh(['bench', '--backend', 'sqlite', '--messages', '10', '--wait-replicas', '1'])
    expect(sqlite.code).toBe(2)
    expect(sqlite.stderr).toMatch(/--wait-replicas is Redis's waitReplicas; .* is not Redis/)
  })

  describe.runIf(available)('on a primary with one replica', () => {
    let primary: RedisServer
    let replica: RedisServer

    beforeAll(async () => {
      primary = await startRedisServer()
      replica = await startRedisServer({ flags: ['--replicaof', '127.0.0.1', String(primary.port)] })
      const onReplica = new Redis(replica.url)
      await waitFor('the replica to be in sync', async () => /master_link_status:up/.test(await onReplica.info('replication')), 60_000)
      onReplica.disconnect()
    }, 120_000)

    afterAll(async () => {
      await Promise.all([primary?.stop(), replica?.stop()])
    })

    it('runs the durable path with each journal write confirmed by the replica, and says so', async () => {
      const args = ['bench', '--backend', primary.url, '--messages', '100', '--concurrency', '4', '--json']
      const result = await botmesh([...args, '--wait-replicas', '1'])
      expect(result.code, result.stderr).toBe(0)
      const report = jsonOf<{ backend: string; durable: { messagesPerSecond: number } }>(result)
      expect(report.backend).toMatch(/, waitReplicas 1$/)
      expect(report.durable.messagesPerSecond).toBeGreaterThan(0)
    }, 300_000)
  })
})
