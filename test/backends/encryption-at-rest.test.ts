/**
 * `durability.encryption` on every persistent backend (test-utils/encryption-at-rest.ts): a raw
 * read of the journal files, the SQLite database (its WAL too), every Redis value under the prefix
 * and every PostgreSQL row under the table prefix finds none of 100 planted texts; a wrong or
 * missing key is ENCRYPTION_KEY_MISSING; a restart with the key replays. The stores are botmesh's
 * own where the backend has one (SQLite, Redis, PostgreSQL), so their message log, checkpoints and
 * user data are read raw too.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll } from 'vitest'
import { eventsDurability } from '../../src/backends/events/durability.js'
import { FileEventJournal, SharedFileEventJournal, type LeasedEventJournal } from '../../src/events/index.js'
import { FileDurability } from '../../src/backends/file/index.js'
import { PostgresStore } from '../../src/backends/postgres/index.js'
import { RedisStore } from '../../src/backends/redis/index.js'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { describeEncryptionAtRest, type AtRestStorage, type OpenedStorage } from '../../test-utils/encryption-at-rest.js'
import { adminQuery, dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix, tablesUnder } from '../../test-utils/postgres.js'
import { deletePrefix, randomPrefix, REDIS_URL, redisAvailable, scanKeys } from '../../test-utils/redis.js'

const [redisUp, postgresUp] = await Promise.all([redisAvailable('encryption at rest on the machine Redis'), postgresAvailable()])

/** Every file of a directory, as text. */
function filesText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'))
    .join('\n')
}

/** Storage in a temp dir, opened by `open(dir)`. */
function inDir(open: (dir: string) => Promise<OpenedStorage & { close(): Promise<void> }>): () => AtRestStorage {
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'botmesh-at-rest-'))
    const closers = new Map<OpenedStorage, () => Promise<void>>()
    return {
      async open() {
        const opened = await open(dir)
        closers.set(opened, opened.close)
        return opened
      },
      release: (opened) => closers.get(opened)!(),
      rawText: async () => filesText(dir),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    }
  }
}

describeEncryptionAtRest(
  'FileDurability (append log)',
  inDir(async (dir) => {
    const backend = await FileDurability.open(join(dir, 'durable.json'), { appendLog: true })
    return { backend, store: new MemoryStore(), close: () => backend.close() }
  }),
)

describeEncryptionAtRest(
  'SQLiteStore and SQLiteDurability',
  inDir(async (dir) => {
    const store = new SQLiteStore({ file: join(dir, 'bot.db') })
    const backend = store.durability()
    return { backend, store, close: async () => (await backend.stop(), await store.stop()) }
  }),
)

const eventsIn = (openJournal: (file: string) => Promise<LeasedEventJournal & { close(): Promise<void> }>) =>
  inDir(async (dir) => {
    const journal = await openJournal(join(dir, 'events.json'))
    return { backend: eventsDurability({ journal }), store: new MemoryStore(), close: () => journal.close() }
  })

describeEncryptionAtRest(
  'eventsDurability over a FileEventJournal',
  eventsIn((file) => FileEventJournal.open(file, { lock: true })),
)
describeEncryptionAtRest(
  'eventsDurability over a SharedFileEventJournal',
  eventsIn((file) => SharedFileEventJournal.open(file)),
)

let admin: Redis | undefined
afterAll(async () => {
  await admin?.quit()
})

describeEncryptionAtRest(
  'RedisStore and RedisDurability',
  () => {
    const prefix = randomPrefix()
    admin ??= new Redis(REDIS_URL)
    const redis = admin
    return {
      async open() {
        const store = new RedisStore({ url: REDIS_URL, prefix })
        return { backend: store.durability(), store }
      },
      async release(opened) {
        await (opened.store as RedisStore).durability().kv.stop()
        await opened.store.stop?.()
      },
      async rawText() {
        const values: string[] = []
        for (const key of await scanKeys(redis, `${prefix}:*`)) values.push(key, await redisValue(redis, key))
        return values.join('\n')
      },
      cleanup: async () => void (await deletePrefix(redis, prefix)),
    }
  },
  redisUp,
)

describeEncryptionAtRest(
  'PostgresStore and PostgresDurability',
  () => {
    const tablePrefix = randomTablePrefix()
    return {
      async open() {
        const store = new PostgresStore({ connectionString: PG_URL, tablePrefix, poolMax: 2, logger: { error: () => {} } })
        return { backend: store.durability(), store }
      },
      async release(opened) {
        await (opened.store as PostgresStore).durability().kv.stop()
        await opened.store.stop?.()
      },
      async rawText() {
        const rows: string[] = []
        for (const table of await tablesUnder(tablePrefix)) {
          const { rows: found } = await adminQuery<{ row: string }>(`SELECT t::text AS row FROM "${table}" t`)
          rows.push(...found.map((row) => row.row))
        }
        return rows.join('\n')
      },
      cleanup: () => dropTablePrefix(tablePrefix),
    }
  },
  postgresUp,
)

/** A Redis value of any type, as text. */
async function redisValue(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key)
  if (type === 'string') return (await redis.get(key)) ?? ''
  if (type === 'hash') return JSON.stringify(await redis.hgetall(key))
  if (type === 'zset') return JSON.stringify(await redis.zrange(key, 0, -1, 'WITHSCORES'))
  if (type === 'list') return JSON.stringify(await redis.lrange(key, 0, -1))
  if (type === 'set') return JSON.stringify(await redis.smembers(key))
  if (type === 'stream') return JSON.stringify(await redis.xrange(key, '-', '+'))
  return `(${type})`
}
