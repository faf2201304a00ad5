/**
 * The shared backends (PostgreSQL and Redis on the machine's servers) as targets for the tests that
 * several replicas need: fresh storage per test (a random table prefix / key prefix), as many backend
 * objects over it as a test wants (one per simulated process, each with its own pool or connection),
 * the argument a child process passes to its backend module, and cleanup of all of it.
 */
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { PostgresDurability, PostgresStore } from '../../src/backends/postgres/index.js'
import { RedisDurability, RedisStore } from '../../src/backends/redis/index.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import type { Store } from '../../src/core/store/store.js'
import { dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { deletePrefix, randomPrefix, REDIS_URL, redisAvailable } from '../../test-utils/redis.js'

/** One test's storage on a shared backend. */
export interface SharedStorage {
  /** A new backend object over this storage, as another process would open it (its own pool / connection). */
  open(): PostgresDurability | RedisDurability
  /** A new persistent store over this storage (its own pool / connection). */
  store(): Store
  /** The module a child process loads to open this storage (createBackend(arg) / createStore(arg)), and its argument. */
  module: string
  arg: unknown
  /** Releases every backend and store opened here (crashed bots never stop theirs) and deletes the storage. */
  cleanup(): Promise<void>
}

export interface SharedTarget {
  name: 'PostgreSQL' | 'Redis'
  /** Whether the server answers (a loud skip off CI; under CI=true a missing server fails the import). */
  available: boolean
  fresh(): SharedStorage
}

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/process-crash/${name}`, import.meta.url))

/** Both shared backends, in a fixed order. */
export async function sharedTargets(): Promise<SharedTarget[]> {
  const [postgres, redis] = await Promise.all([postgresAvailable(), redisAvailable('tests of several replicas on the machine Redis')])
  return [
    { name: 'PostgreSQL', available: postgres, fresh: freshPostgres },
    { name: 'Redis', available: redis, fresh: freshRedis },
  ]
}

function freshPostgres(): SharedStorage {
  const tablePrefix = randomTablePrefix()
  const opened: { stop(): Promise<void> }[] = []
  return {
    open() {
      const backend = new PostgresDurability({ connectionString: PG_URL, tablePrefix, poolMax: 4, logger: { error: () => {} } })
      opened.push(backend.kv)
      return backend
    },
    store() {
      const store = new PostgresStore({ connectionString: PG_URL, tablePrefix, poolMax: 2, logger: { error: () => {} } })
      opened.push(store)
      return store
    },
    module: fixture('postgres-backend.ts'),
    arg: { connectionString: PG_URL, tablePrefix },
    async cleanup() {
      await Promise.all(opened.map((each) => each.stop().catch(() => undefined)))
      await dropTablePrefix(tablePrefix)
    },
  }
}

function freshRedis(): SharedStorage {
  const prefix = randomPrefix()
  const opened: { stop(): Promise<void> }[] = []
  return {
    open() {
      const backend = new RedisDurability({ url: REDIS_URL, prefix })
      opened.push(backend.kv)
      return backend
    },
    store() {
      const store = new RedisStore({ url: REDIS_URL, prefix })
      opened.push(store)
      return store
    },
    module: fixture('redis-backend.ts'),
    arg: { url: REDIS_URL, prefix },
    async cleanup() {
      await Promise.all(opened.map((each) => each.stop().catch(() => undefined)))
      const admin = new Redis(REDIS_URL)
      try {
        await deletePrefix(admin, prefix)
      } finally {
        admin.disconnect()
      }
    },
  }
}
